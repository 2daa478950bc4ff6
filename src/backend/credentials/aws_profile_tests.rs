use super::*;
use time::format_description::well_known::Rfc3339;

fn environment(vars: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    vars.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect()
}

const CREDENTIALS: &str = "[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = default-secret\n\n\
    # a comment\n[deploy]\nAWS_ACCESS_KEY_ID=AKDEPLOY\naws_secret_access_key=deploy/secret+key\naws_session_token = deploy-session\n";
const CONFIG: &str = "[default]\nregion = eu-west-1\n[profile  deploy]\nregion=us-west-2\n\
    [profile only-config]\naws_access_key_id = AKCONFIG\naws_secret_access_key = config-secret\n\
    [profile sso]\nsso_session = corp\nsso_account_id = 1\n";

fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".aws")).unwrap();
    std::fs::write(home.path().join(".aws/credentials"), CREDENTIALS).unwrap();
    std::fs::write(home.path().join(".aws/config"), CONFIG).unwrap();
    home
}

/// Access key, secret key, session token, region.
type Found = (String, String, Option<String>, Option<String>);

fn keys(vars: &[(&str, &str)]) -> Option<Found> {
    let environment = environment(vars);
    let region = AwsSharedFiles::read(&environment).region();
    let found = AwsProfile::from_environment(&environment).unwrap_or_else(|err| panic!("{err}"));
    found.map(|p| (p.access_key, p.secret_key, p.session_token, region))
}

fn refusal(vars: &[(&str, &str)]) -> String {
    match AwsProfile::from_environment(&environment(vars)) {
        Ok(_) => panic!("{vars:?} was read"),
        Err(err) => err.to_string(),
    }
}

/// The profile `AWS_PROFILE` names, else `default`: keys from the credentials file (names in any
/// case, spaces optional), else from the config file's `[profile NAME]`; the region from the
/// config file.
#[test]
fn a_profile_is_read_from_the_shared_files_as_the_sdk_reads_it() {
    let home = home();
    let home_path = home.path().display().to_string();
    let owned = |a: &str, s: &str, t: Option<&str>, r: Option<&str>| {
        Some((a.to_string(), s.to_string(), t.map(str::to_string), r.map(str::to_string)))
    };
    assert_eq!(keys(&[("HOME", &home_path)]), owned("AKDEFAULT", "default-secret", None, Some("eu-west-1")));
    assert_eq!(
        keys(&[("HOME", &home_path), ("AWS_PROFILE", "deploy")]),
        owned("AKDEPLOY", "deploy/secret+key", Some("deploy-session"), Some("us-west-2"))
    );
    assert_eq!(
        keys(&[("HOME", &home_path), ("AWS_DEFAULT_PROFILE", "only-config")]),
        owned("AKCONFIG", "config-secret", None, None)
    );
    // The files' own variables move them.
    let elsewhere = tempfile::tempdir().unwrap();
    let moved = elsewhere.path().join("creds");
    std::fs::write(&moved, "[default]\naws_access_key_id=AKMOVED\naws_secret_access_key=moved\n").unwrap();
    let moved = moved.display().to_string();
    assert_eq!(
        keys(&[("HOME", &home_path), ("AWS_SHARED_CREDENTIALS_FILE", &moved)]),
        owned("AKMOVED", "moved", None, Some("eu-west-1"))
    );
}

/// No files and no profile asked for: nothing to read. A profile asked for but missing, or one
/// that signs in some other way, is named with what to do, and no key is in the message.
#[test]
fn missing_and_unsupported_profiles_are_named_without_keys() {
    let empty = tempfile::tempdir().unwrap();
    let empty_path = empty.path().display().to_string();
    assert_eq!(keys(&[("HOME", &empty_path)]), None);
    assert_eq!(keys(&[]), None);
    let home = home();
    let home_path = home.path().display().to_string();
    let missing = refusal(&[("HOME", &home_path), ("AWS_PROFILE", "nope")]);
    assert!(missing.starts_with("the AWS profile `nope` is in neither `"), "{missing}");
    let sso = refusal(&[("HOME", &home_path), ("AWS_PROFILE", "sso")]);
    assert!(sso.contains("aws configure export-credentials --profile sso --format env"), "{sso}");
    for said in [missing, sso] {
        assert!(!said.contains("secret") || said.contains("aws_secret_access_key"), "{said}");
        assert!(!said.contains("AKD") && !said.contains("default-secret"), "{said}");
    }
}

/// A profile's `credential_process` is run with `sh -c` in the run's environment and its JSON
/// read as the AWS SDK reads it; its answer is kept, so a second read runs nothing. A process
/// that fails or prints something else is named without what it printed on stdout.
#[test]
fn a_credential_process_is_run_once_and_its_answer_read() {
    let home = tempfile::tempdir().unwrap();
    let aws = home.path().join(".aws");
    std::fs::create_dir_all(&aws).unwrap();
    let expiration = (time::OffsetDateTime::now_utc() + time::Duration::hours(1)).format(&Rfc3339).unwrap();
    let helper = aws.join("helper.sh");
    std::fs::write(
        &helper,
        format!(
            "echo run >> \"$HELPER_RUNS\"\necho '{{\"Version\": 1, \"AccessKeyId\": \"AKPROC\", \"SecretAccessKey\": \"proc-secret\", \"SessionToken\": \"proc-session\", \"Expiration\": \"{expiration}\"}}'\n"
        ),
    )
    .unwrap();
    let config = format!(
        "[profile vault]\ncredential_process = sh {helper}\n[profile broken]\ncredential_process = sh -c 'echo \"no such vault\" >&2; exit 3'\n[profile chatty]\ncredential_process = echo proc-secret-but-no-json\n",
        helper = helper.display()
    );
    std::fs::write(aws.join("config"), config).unwrap();
    let runs = home.path().join("runs");
    let home_path = home.path().display().to_string();
    let runs_path = runs.display().to_string();
    let vars = |profile: &'static str| {
        let home = home_path.clone();
        let runs = runs_path.clone();
        move || {
            environment(&[("HOME", &home), ("HELPER_RUNS", &runs), ("PATH", "/usr/bin:/bin"), ("AWS_PROFILE", profile)])
        }
    };
    let vault = vars("vault");
    for _ in 0..2 {
        let found = AwsProfile::from_environment(&vault()).unwrap().unwrap();
        assert_eq!((found.access_key.as_str(), found.secret_key.as_str()), ("AKPROC", "proc-secret"));
        assert_eq!(found.session_token.as_deref(), Some("proc-session"));
    }
    assert_eq!(std::fs::read_to_string(&runs).unwrap().lines().count(), 1, "the helper ran again");
    let broken = refusal_in(&vars("broken")());
    assert_eq!(broken, "the `credential_process` of the AWS profile `broken` failed (exit code 3): no such vault");
    let chatty = refusal_in(&vars("chatty")());
    assert!(chatty.contains("printed no JSON with `Version` 1") && !chatty.contains("proc-secret"), "{chatty}");
}

fn refusal_in(environment: &dyn RunEnvironment) -> String {
    match AwsProfile::from_environment(environment) {
        Ok(_) => panic!("the profile was read"),
        Err(err) => err.to_string(),
    }
}
