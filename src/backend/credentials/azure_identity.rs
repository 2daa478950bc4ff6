//! Microsoft Entra ID (Azure AD) sign-in for an `azblob://` backend that has no storage key, SAS
//! token or connection string: Pulumi's driver then signs in with the Azure SDK's
//! `DefaultAzureCredential`, and the runner tries what it tries, in its order: a service
//! principal's secret, a workload identity's federated token file, then the Azure CLI's sign-in
//! (`az login`). The managed-identity endpoint of an Azure VM is not asked.

use std::path::PathBuf;
use std::time::Duration;

use super::oauth_token::exchange_for_token;
use super::token_cache::{cached_token, AccessToken};
use crate::backend::store::object_store_error::ObjectStoreError;
use crate::backend::store::object_store_response::uri_encode;
use crate::backend::RunEnvironment;
use crate::cancel::{Cancellation, ChildProcess};

/// Blob data, whatever the account: the scope and resource Azure Storage tokens are issued for.
const STORAGE_RESOURCE: &str = "https://storage.azure.com";
/// `az` starts Python and may refresh its own token first; the Azure SDK waits this long too.
const AZURE_CLI_TIMEOUT: Duration = Duration::from_secs(30);

/// No `Debug`: a client secret is in it.
pub(crate) enum AzureIdentity {
    /// `AZURE_TENANT_ID`, `AZURE_CLIENT_ID`, `AZURE_CLIENT_SECRET`.
    ClientSecret { token_url: String, client_id: String, secret: String },
    /// `AZURE_TENANT_ID`, `AZURE_CLIENT_ID`, `AZURE_FEDERATED_TOKEN_FILE` (AKS workload identity).
    WorkloadIdentity { token_url: String, client_id: String, token_file: PathBuf },
    /// `az` on the run's `PATH`.
    AzureCli { program: PathBuf },
}

impl AzureIdentity {
    /// The first way to sign in the run's environment offers, `None` when it offers none.
    pub(crate) fn from_environment(environment: &dyn RunEnvironment) -> Option<Self> {
        let tenant_and_client = environment.get("AZURE_TENANT_ID").zip(environment.get("AZURE_CLIENT_ID"));
        if let Some((tenant, client_id)) = tenant_and_client {
            let authority = environment.get("AZURE_AUTHORITY_HOST").unwrap_or("https://login.microsoftonline.com");
            let token_url =
                format!("{}/{}/oauth2/v2.0/token", authority.trim_end_matches('/'), uri_encode(tenant, false));
            let client_id = client_id.to_string();
            if let Some(secret) = environment.get("AZURE_CLIENT_SECRET") {
                return Some(Self::ClientSecret { token_url, client_id, secret: secret.to_string() });
            }
            if let Some(file) = environment.get("AZURE_FEDERATED_TOKEN_FILE") {
                return Some(Self::WorkloadIdentity { token_url, client_id, token_file: file.into() });
            }
        }
        let path = environment.get("PATH")?;
        let cwd = std::env::current_dir().ok()?;
        which::which_in("az", Some(path), cwd).ok().map(|program| Self::AzureCli { program })
    }

    /// What the errors call this sign-in.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Self::ClientSecret { .. } => "the service principal of `AZURE_CLIENT_ID` and `AZURE_CLIENT_SECRET`",
            Self::WorkloadIdentity { .. } => "the workload identity of `AZURE_FEDERATED_TOKEN_FILE`",
            Self::AzureCli { .. } => "the Azure CLI's sign-in",
        }
    }

    /// A bearer token for Azure Storage. A refusal names this sign-in and how to mend it.
    pub(crate) fn access_token(&self, environment: &dyn RunEnvironment) -> Result<String, ObjectStoreError> {
        let (token_url, form) = match self {
            Self::AzureCli { program } => {
                let owner = program.display().to_string();
                let config = environment.get("AZURE_CONFIG_DIR").unwrap_or_default();
                return cached_token(&["az", &owner, config], || azure_cli_token(program, environment));
            }
            Self::ClientSecret { token_url, client_id, secret } => {
                (token_url, client_credentials(client_id, &format!("client_secret={}", uri_encode(secret, false))))
            }
            Self::WorkloadIdentity { token_url, client_id, token_file } => {
                let assertion = std::fs::read_to_string(token_file).map_err(|err| {
                    ObjectStoreError::InvalidCredentials(format!(
                        "cannot read `AZURE_FEDERATED_TOKEN_FILE` ({}): {err}",
                        token_file.display()
                    ))
                })?;
                let assertion_type = uri_encode("urn:ietf:params:oauth:client-assertion-type:jwt-bearer", false);
                let proof = format!(
                    "client_assertion_type={assertion_type}&client_assertion={}",
                    uri_encode(assertion.trim(), false)
                );
                (token_url, client_credentials(client_id, &proof))
            }
        };
        // The form names the client and its proof (the secret, the federated token as its file
        // holds it now): a rotated proof gets a token of its own.
        cached_token(&["entra", token_url, &form], || exchange_for_token(token_url, form.clone())).map_err(|err| match err {
            ObjectStoreError::Status { .. } => ObjectStoreError::CredentialsRefused {
                credentials: self.describe().to_string(),
                refusal: Box::new(err),
                hint: "check `AZURE_TENANT_ID`, `AZURE_CLIENT_ID` and the secret or token file, and that the principal has not expired",
            },
            other => other,
        })
    }
}

/// The client-credentials grant for Azure Storage, the client proven by `proof` (a secret or a
/// federated token).
fn client_credentials(client_id: &str, proof: &str) -> String {
    let scope = uri_encode(&format!("{STORAGE_RESOURCE}/.default"), false);
    format!("grant_type=client_credentials&client_id={}&{proof}&scope={scope}", uri_encode(client_id, false))
}

/// `az account get-access-token`, run with the environment `pulumi` gets (its `AZURE_CONFIG_DIR`,
/// its `PATH`), as the Azure SDK runs it.
fn azure_cli_token(
    program: &std::path::Path,
    environment: &dyn RunEnvironment,
) -> Result<AccessToken, ObjectStoreError> {
    let output = ChildProcess::new(program)
        .args(["account", "get-access-token", "--output", "json", "--resource", STORAGE_RESOURCE])
        .env_clear()
        .envs(environment.vars())
        .timeout(AZURE_CLI_TIMEOUT)
        .output_blocking(&Cancellation::process());
    let answer = serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap_or_default();
    // `expires_on`, seconds since the epoch, is what az 2.54 and later add for SDKs.
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    let expires_in =
        answer["expires_on"].as_i64().and_then(|end| u64::try_from(end - now).ok()).map(Duration::from_secs);
    let token = answer["accessToken"]
        .as_str()
        .map(|value| AccessToken { value: value.to_string(), expires_in })
        .filter(|_| output.success());
    token.ok_or_else(|| {
        // az's own first line says why ("Please run 'az login' to setup account.").
        let said = output.stderr_reason();
        let said = if said.is_empty() { String::new() } else { format!(": {said}") };
        ObjectStoreError::InvalidCredentials(format!(
            "`az account get-access-token` gave no token ({}){said}; sign in with `az login`",
            output.end.describe()
        ))
    })
}

#[cfg(test)]
#[path = "azure_identity_tests.rs"]
mod tests;
