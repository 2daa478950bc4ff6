//! The few S3 requests that read and remove Pulumi's lock objects on an `s3://` backend: list
//! by prefix, get and delete, signed with AWS Signature Version 4. Pulumi's own CLI has no
//! command that says who holds a lock, so the runner reads the objects itself.

use ring::{digest, hmac};

use super::object_store::ObjectStore;
use super::object_store_error::ObjectStoreError;
use super::object_store_response::{percent_decode, send_request, uri_encode, xml_values};
use crate::backend::credentials::aws_profile::AwsSharedFiles;
use crate::backend::RunEnvironment;

/// Where the bucket is and how to sign for it, from `s3://BUCKET/PREFIX?endpoint=..&region=..`
/// and the credentials the runner gives its children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct S3Client {
    /// `http(s)://host[:port]` of the store.
    endpoint: String,
    host: String,
    bucket: String,
    /// The backend's folder inside the bucket, empty or ending in `/`.
    prefix: String,
    region: String,
    path_style: bool,
    access_key: String,
    secret_key: String,
    session_token: Option<String>,
}

impl S3Client {
    /// `None` when `url` is not an `s3://` URL; `Err` when the credentials are missing.
    pub(crate) fn from_url(url: &str, environment: &dyn RunEnvironment) -> Option<Result<Self, ObjectStoreError>> {
        let rest = url.strip_prefix("s3://")?;
        let (location, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (bucket, prefix) = location.split_once('/').unwrap_or((location, ""));
        let parameter = |name: &str| {
            query.split('&').find_map(|pair| pair.split_once('=').filter(|(key, _)| *key == name).map(|(_, v)| v))
        };
        let shared_files = AwsSharedFiles::read(environment);
        let region = parameter("region")
            .map(str::to_string)
            .or_else(|| environment.get("AWS_REGION").map(str::to_string))
            .or_else(|| environment.get("AWS_DEFAULT_REGION").map(str::to_string))
            .or_else(|| shared_files.region())
            .unwrap_or_else(|| "us-east-1".to_string());
        let truthy = |name: &str| parameter(name).is_some_and(|value| value == "true" || value == "1");
        let path_style = truthy("use_path_style") || truthy("s3ForcePathStyle");
        let endpoint = match parameter("endpoint").map(percent_decode) {
            Some(endpoint) if endpoint.starts_with("http://") || endpoint.starts_with("https://") => endpoint,
            Some(host) if truthy("disableSSL") || truthy("disable_https") => format!("http://{host}"),
            Some(host) => format!("https://{host}"),
            None => format!("https://s3.{region}.amazonaws.com"),
        };
        let endpoint = endpoint.trim_end_matches('/').to_string();
        let (scheme, authority) = endpoint.split_once("://").unwrap_or(("https", &endpoint));
        let authority = authority.split('/').next().unwrap_or(authority).to_string();
        let (endpoint, host) = if path_style {
            (format!("{scheme}://{authority}"), authority)
        } else {
            (format!("{scheme}://{bucket}.{authority}"), format!("{bucket}.{authority}"))
        };
        let credentials = (environment.get("AWS_ACCESS_KEY_ID"), environment.get("AWS_SECRET_ACCESS_KEY"));
        let (access_key, secret_key, session_token) = match credentials {
            (Some(access_key), Some(secret_key)) => (
                access_key.to_string(),
                secret_key.to_string(),
                environment.get("AWS_SESSION_TOKEN").map(str::to_string),
            ),
            // As the AWS SDK: the shared files once the environment has no keys.
            _ => match shared_files.keys(environment) {
                Ok(Some(profile)) => (profile.access_key, profile.secret_key, profile.session_token),
                Ok(None) => return Some(Err(ObjectStoreError::MissingCredentials(
                    "neither `AWS_ACCESS_KEY_ID` with `AWS_SECRET_ACCESS_KEY` nor an AWS profile (`aws configure`, `AWS_PROFILE`) is there: the runner cannot read the locks"
                        .into(),
                ))),
                Err(err) => return Some(Err(err)),
            },
        };
        let prefix = prefix.trim_matches('/');
        Some(Ok(Self {
            endpoint,
            host,
            bucket: bucket.to_string(),
            prefix: if prefix.is_empty() { String::new() } else { format!("{prefix}/") },
            region,
            path_style,
            access_key,
            secret_key,
            session_token,
        }))
    }
}

impl ObjectStore for S3Client {
    fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Every key under `prefix` (ListObjectsV2, page after page).
    fn list(&self, prefix: &str) -> Result<Vec<String>, ObjectStoreError> {
        super::object_store::every_page(|token| {
            let mut query = vec![("list-type", "2".to_string()), ("prefix", prefix.to_string())];
            if let Some(token) = token {
                query.push(("continuation-token", token.to_string()));
            }
            let body = self.send("GET", "", &query)?;
            let body = String::from_utf8_lossy(&body);
            let truncated = xml_values(&body, "IsTruncated").iter().any(|value| value == "true");
            let next = xml_values(&body, "NextContinuationToken").into_iter().next().filter(|_| truncated);
            Ok((xml_values(&body, "Key"), next))
        })
    }

    fn get(&self, key: &str) -> Result<Vec<u8>, ObjectStoreError> {
        self.send("GET", key, &[])
    }

    fn delete(&self, key: &str) -> Result<(), ObjectStoreError> {
        self.send("DELETE", key, &[]).map(|_| ())
    }
}

impl S3Client {
    /// One signed request (`send_request` gives it its own small runtime).
    fn send(&self, method: &str, key: &str, query: &[(&str, String)]) -> Result<Vec<u8>, ObjectStoreError> {
        let path = if self.path_style { format!("/{}/{}", self.bucket, key) } else { format!("/{key}") };
        let path = if key.is_empty() && self.path_style { format!("/{}", self.bucket) } else { path };
        let canonical_uri = uri_encode(&path, true);
        let mut pairs: Vec<(String, String)> =
            query.iter().map(|(name, value)| (uri_encode(name, false), uri_encode(value, false))).collect();
        pairs.sort();
        let canonical_query = pairs.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join("&");
        let amz_date = time::OffsetDateTime::now_utc()
            .format(&time::macros::format_description!("[year][month][day]T[hour][minute][second]Z"))
            .unwrap_or_default();
        let headers = self.signed_headers(method, &canonical_uri, &canonical_query, &amz_date);
        let url = if canonical_query.is_empty() {
            format!("{}{canonical_uri}", self.endpoint)
        } else {
            format!("{}{canonical_uri}?{canonical_query}", self.endpoint)
        };
        let method = if method == "DELETE" { reqwest::Method::DELETE } else { reqwest::Method::GET };
        let headers: Vec<(String, String)> =
            headers.into_iter().map(|(name, value)| (name.to_string(), value)).collect();
        send_request(method, &url, &headers, Vec::new())?.into_body(&url, |body| {
            xml_values(&String::from_utf8_lossy(body), "Code").into_iter().next().unwrap_or_default()
        })
    }

    /// The headers of a SigV4-signed request with an empty body, `Authorization` last.
    fn signed_headers(
        &self,
        method: &str,
        canonical_uri: &str,
        canonical_query: &str,
        amz_date: &str,
    ) -> Vec<(&'static str, String)> {
        let payload_hash = hex(digest::digest(&digest::SHA256, b"").as_ref());
        let mut headers = vec![
            ("host", self.host.clone()),
            ("x-amz-content-sha256", payload_hash.clone()),
            ("x-amz-date", amz_date.to_string()),
        ];
        if let Some(token) = &self.session_token {
            headers.push(("x-amz-security-token", token.clone()));
        }
        let canonical_headers: String =
            headers.iter().map(|(name, value)| format!("{name}:{}\n", value.trim())).collect();
        let signed = headers.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(";");
        let request =
            format!("{method}\n{canonical_uri}\n{canonical_query}\n{canonical_headers}\n{signed}\n{payload_hash}");
        let date = &amz_date[..8];
        let scope = format!("{date}/{}/s3/aws4_request", self.region);
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
            hex(digest::digest(&digest::SHA256, request.as_bytes()).as_ref())
        );
        let mut key = format!("AWS4{}", self.secret_key).into_bytes();
        for part in [date, self.region.as_str(), "s3", "aws4_request"] {
            key = sign(&key, part.as_bytes());
        }
        let signature = hex(&sign(&key, to_sign.as_bytes()));
        headers.push((
            "authorization",
            format!(
                "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed}, Signature={signature}",
                self.access_key
            ),
        ));
        // `host` is set by the HTTP client from the URL.
        headers.retain(|(name, _)| *name != "host");
        headers
    }
}

fn sign(key: &[u8], data: &[u8]) -> Vec<u8> {
    hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), data).as_ref().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn environment(vars: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
        vars.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect()
    }

    #[test]
    fn the_url_decides_host_style_region_and_prefix() {
        let env = environment(&[("AWS_ACCESS_KEY_ID", "AK"), ("AWS_SECRET_ACCESS_KEY", "SK")]);
        let path = S3Client::from_url(
            "s3://state/team/a?endpoint=http://127.0.0.1:9000&use_path_style=true&region=eu-west-1",
            &env,
        )
        .unwrap()
        .unwrap();
        assert_eq!((path.endpoint.as_str(), path.host.as_str()), ("http://127.0.0.1:9000", "127.0.0.1:9000"));
        assert_eq!((path.prefix.as_str(), path.region.as_str(), path.path_style), ("team/a/", "eu-west-1", true));
        let legacy = S3Client::from_url("s3://state?endpoint=minio:9000&s3ForcePathStyle=true&disableSSL=true", &env)
            .unwrap()
            .unwrap();
        assert_eq!(legacy.endpoint, "http://minio:9000");
        assert!(legacy.path_style);
        let aws = S3Client::from_url("s3://state?region=us-west-2", &env).unwrap().unwrap();
        assert_eq!(aws.endpoint, "https://state.s3.us-west-2.amazonaws.com");
        assert_eq!(aws.prefix, "");
        assert!(S3Client::from_url("s3://state", &environment(&[])).unwrap().is_err(), "no credentials");
        assert!(S3Client::from_url("gs://state", &env).is_none());
    }

    /// Keys in the environment win over the shared files, as in the AWS SDK; without them the
    /// profile's keys sign, and its config `region` places the AWS endpoint unless the URL or
    /// `AWS_REGION` says otherwise.
    #[test]
    fn an_aws_profile_signs_when_the_environment_has_no_keys() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".aws")).unwrap();
        std::fs::write(
            home.path().join(".aws/credentials"),
            "[ci]\naws_access_key_id=AKPROFILE\naws_secret_access_key=SKP\n",
        )
        .unwrap();
        std::fs::write(home.path().join(".aws/config"), "[profile ci]\nregion = ap-south-1\n").unwrap();
        let home = home.path().display().to_string();
        let profile = environment(&[("HOME", &home), ("AWS_PROFILE", "ci")]);
        let client = S3Client::from_url("s3://state", &profile).unwrap().unwrap();
        assert_eq!((client.access_key.as_str(), client.region.as_str()), ("AKPROFILE", "ap-south-1"));
        assert_eq!(client.endpoint, "https://state.s3.ap-south-1.amazonaws.com");
        let keyed = environment(&[
            ("HOME", &home),
            ("AWS_PROFILE", "ci"),
            ("AWS_ACCESS_KEY_ID", "AKENV"),
            ("AWS_SECRET_ACCESS_KEY", "SKE"),
            ("AWS_REGION", "eu-north-1"),
        ]);
        let client = S3Client::from_url("s3://state", &keyed).unwrap().unwrap();
        assert_eq!((client.access_key.as_str(), client.region.as_str()), ("AKENV", "eu-north-1"));
        let named = S3Client::from_url("s3://state?region=us-west-1", &profile).unwrap().unwrap();
        assert_eq!(named.region, "us-west-1");
    }

    /// The signing key of AWS's SigV4 documentation ("Examples of how to derive a signing key").
    #[test]
    fn the_signing_key_matches_aws_documentation() {
        let mut key = b"AWS4wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".to_vec();
        for part in ["20120215", "us-east-1", "iam", "aws4_request"] {
            key = sign(&key, part.as_bytes());
        }
        assert_eq!(hex(&key), "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
    }

    #[test]
    fn list_answers_are_read_with_entities() {
        let xml = "<ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>a&amp;b.json</Key></Contents><Contents><Key>c.json</Key></Contents><NextContinuationToken>t1</NextContinuationToken></ListBucketResult>";
        assert_eq!(xml_values(xml, "Key"), ["a&b.json", "c.json"]);
        assert_eq!(xml_values(xml, "NextContinuationToken"), ["t1"]);
        assert_eq!(uri_encode("a b/c~", false), "a%20b%2Fc~");
        assert_eq!(percent_decode("http%3A%2F%2Fh%3A9"), "http://h:9");
    }
}
