//! Where each store's credentials come from, found the way Pulumi's own SDKs find them: AWS
//! profiles and `credential_process`, Azure keys, SAS tokens and `az`, Google service accounts
//! and authorized users; the tokens they yield, cached for their lifetime.
pub(super) mod aws_profile;
pub(super) mod azure_identity;
pub(super) mod gcs_authorized_user;
pub(super) mod gcs_credentials;
pub(super) mod gcs_service_account;
pub(super) mod oauth_token;
pub(super) mod token_cache;

pub(crate) use aws_profile::AwsProfile;
pub(crate) use azure_identity::AzureIdentity;
