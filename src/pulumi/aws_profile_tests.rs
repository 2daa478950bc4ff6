use super::*;

fn environment(vars: &[(&str, &str)]) -> ChildEnvironment {
    let root = crate::config::RepositoryRoot::unchecked(std::path::Path::new("/nonexistent"));
    ChildEnvironment::build(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())), &Default::default(), &root)
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
    let region = AwsProfile::region(&environment);
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
