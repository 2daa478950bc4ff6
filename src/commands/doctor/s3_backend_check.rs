use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use crate::backend::AwsProfile;
use crate::cancel::{Cancellation, ChildEnd, ChildProcess, QUERY_TIMEOUT};
use crate::pulumi::ChildEnvironment;

/// One line of `runner doctor` about an `s3://` backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BackendFinding {
    pub check: &'static str,
    pub ok: bool,
    pub detail: String,
}

/// The parts of an `s3://BUCKET?endpoint=...&region=...` URL the checks need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct S3Url {
    pub bucket: String,
    /// `host:port` to connect to.
    pub address: String,
}

impl S3Url {
    pub(crate) fn parse(url: &str) -> Option<Self> {
        let rest = url.strip_prefix("s3://")?;
        let (bucket_path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let bucket = bucket_path.split('/').next().unwrap_or_default().to_string();
        let parameter = |name: &str| {
            query.split('&').find_map(|pair| pair.split_once('=').filter(|(key, _)| *key == name).map(|(_, v)| v))
        };
        let region = parameter("region").unwrap_or("us-east-1");
        let address = match parameter("endpoint") {
            Some(endpoint) => {
                let secure = endpoint.starts_with("https://")
                    || (!endpoint.starts_with("http://") && parameter("disableSSL") != Some("true"));
                let host = endpoint.trim_start_matches("https://").trim_start_matches("http://");
                let host = host.split('/').next().unwrap_or(host);
                if host.rsplit_once(':').is_some_and(|(_, port)| port.parse::<u16>().is_ok()) {
                    host.to_string()
                } else {
                    format!("{host}:{}", if secure { 443 } else { 80 })
                }
            }
            None => format!("s3.{region}.amazonaws.com:443"),
        };
        Some(Self { bucket, address })
    }
}

/// Reachable (a TCP connection opens), credentials (accepted by the store) and bucket (exists),
/// each with its fix. The last two ask the store through `pulumi stack ls`, the way every run
/// will reach it, so no S3 client of our own can disagree with Pulumi's.
pub(crate) fn check_s3_backend(
    url: &str,
    environment: &ChildEnvironment,
    pulumi: Option<&Path>,
) -> Vec<BackendFinding> {
    let Some(s3) = S3Url::parse(url) else {
        return vec![BackendFinding {
            check: "backend",
            ok: false,
            detail: format!("`{url}` is not an `s3://BUCKET?...` URL"),
        }];
    };
    let mut findings = Vec::new();
    let reachable = s3
        .address
        .to_socket_addrs()
        .ok()
        .and_then(|mut addresses| addresses.next())
        .map(|address| TcpStream::connect_timeout(&address, Duration::from_secs(5)));
    match reachable {
        Some(Ok(_)) => {
            findings.push(BackendFinding { check: "backend reachable", ok: true, detail: s3.address.clone() })
        }
        Some(Err(err)) => {
            findings.push(BackendFinding {
                check: "backend reachable",
                ok: false,
                detail: format!(
                    "cannot connect to {}: {err}; start the object store or fix `endpoint=` in `PULUMI_BACKEND_URL`",
                    s3.address
                ),
            });
            return findings;
        }
        None => {
            findings.push(BackendFinding {
                check: "backend reachable",
                ok: false,
                detail: format!("cannot resolve `{}`: fix `endpoint=` in `PULUMI_BACKEND_URL`", s3.address),
            });
            return findings;
        }
    }
    let keys = environment.get("AWS_ACCESS_KEY_ID").is_some() && environment.get("AWS_SECRET_ACCESS_KEY").is_some();
    // `pulumi stack ls` below judges a named profile whatever it holds (SSO, a role); the default
    // one counts only when the shared files have it.
    let profile =
        environment.get("AWS_PROFILE").is_some() || matches!(AwsProfile::from_environment(environment), Ok(Some(_)));
    if !keys && !profile {
        findings.push(BackendFinding {
            check: "backend credentials",
            ok: false,
            detail: "neither `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE` nor a default profile (`aws configure`) is there: put them in the environment (never in the repository)".into(),
        });
        return findings;
    }
    let Some(pulumi) = pulumi else { return findings };
    let output = ChildProcess::new(pulumi)
        .args(["stack", "ls", "--all", "--json", "--non-interactive"])
        .env_clear()
        .envs(environment.vars())
        .timeout(QUERY_TIMEOUT)
        .output_blocking(&Cancellation::process());
    if let ChildEnd::SpawnFailed(reason) = &output.end {
        findings.push(BackendFinding {
            check: "backend credentials",
            ok: false,
            detail: format!("cannot run {reason}"),
        });
        return findings;
    }
    let text = String::from_utf8_lossy(&output.stderr).to_string();
    let credentials_rejected =
        ["InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidClientTokenId", "no valid credential"]
            .iter()
            .any(|needle| text.contains(needle));
    let bucket_missing =
        ["NoSuchBucket", "bucket does not exist", "NotFound"].iter().any(|needle| text.contains(needle));
    let first_line = text.lines().find(|line| !line.trim().is_empty()).unwrap_or("").trim().to_string();
    if output.success() {
        findings.push(BackendFinding {
            check: "backend credentials",
            ok: true,
            detail: "accepted by the object store".into(),
        });
        findings.push(BackendFinding { check: "backend bucket", ok: true, detail: format!("`{}` exists", s3.bucket) });
    } else if credentials_rejected {
        findings.push(BackendFinding {
            check: "backend credentials",
            ok: false,
            detail: format!(
                "rejected by the object store ({first_line}): fix `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`"
            ),
        });
    } else if bucket_missing {
        findings.push(BackendFinding {
            check: "backend credentials",
            ok: true,
            detail: "accepted by the object store".into(),
        });
        findings.push(BackendFinding {
            check: "backend bucket",
            ok: false,
            detail: format!(
                "bucket `{}` does not exist: create it (e.g. `aws s3 mb s3://{}`) or fix `PULUMI_BACKEND_URL`",
                s3.bucket, s3.bucket
            ),
        });
    } else {
        findings.push(BackendFinding {
            check: "backend bucket",
            ok: false,
            detail: format!("`pulumi stack ls` failed: {first_line}"),
        });
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_endpoint_and_bucket() {
        let url =
            S3Url::parse("s3://state?endpoint=http://127.0.0.1:9000&use_path_style=true&region=us-east-1").unwrap();
        assert_eq!(url, S3Url { bucket: "state".into(), address: "127.0.0.1:9000".into() });
        let old = S3Url::parse("s3://b/prefix?endpoint=127.0.0.1:9100&disableSSL=true&s3ForcePathStyle=true").unwrap();
        assert_eq!(old, S3Url { bucket: "b".into(), address: "127.0.0.1:9100".into() });
        let aws = S3Url::parse("s3://b?region=eu-west-1").unwrap();
        assert_eq!(aws.address, "s3.eu-west-1.amazonaws.com:443");
        assert_eq!(S3Url::parse("file:///tmp"), None);
    }

    #[test]
    fn an_unreachable_store_is_named_with_its_fix() {
        // Below the ephemeral range: no server another test starts on a port of its own takes it.
        let port = 1;
        let url = format!("s3://state?endpoint=http://127.0.0.1:{port}&use_path_style=true");
        let findings = check_s3_backend(&url, &ChildEnvironment::default(), None);
        assert_eq!(findings.len(), 1);
        assert!(!findings[0].ok && findings[0].detail.contains("start the object store"), "{findings:?}");
    }
}
