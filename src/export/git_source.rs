use crate::error::{Result, UserError};

/// Which revision the operator checks out: exactly one of a branch or a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GitReference {
    Branch(String),
    Commit(String),
}

/// The repository the operator clones, with the projects under `repoDir`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitSource {
    pub url: String,
    pub reference: GitReference,
}

impl GitSource {
    /// Checks what the operator rejects but the API server accepts.
    pub(crate) fn new(url: &str, branch: Option<String>, commit: Option<String>) -> Result<Self> {
        let reference = match (branch, commit) {
            (Some(branch), None) if !branch.trim().is_empty() => GitReference::Branch(branch),
            (None, Some(commit)) if is_commit(&commit) => GitReference::Commit(commit),
            (None, Some(commit)) => {
                return Err(UserError::Usage(format!(
                    "`--git-commit {commit}` is not a commit hash: give 7 to 40 hexadecimal digits"
                )))
            }
            (Some(_), Some(_)) => {
                return Err(UserError::Usage("give one of `--git-branch` or `--git-commit`, not both".into()))
            }
            _ => return Err(UserError::Usage("give one of `--git-branch` or `--git-commit`".into())),
        };
        check_git_url(url)?;
        Ok(Self { url: url.to_string(), reference })
    }
}

fn is_commit(text: &str) -> bool {
    (7..=40).contains(&text.len()) && text.chars().all(|c| c.is_ascii_hexdigit())
}

/// The operator derives the workspace from `<host>/<owner>/<repo>`: a URL without both is
/// accepted by the API server and fails later in the cluster.
pub(super) fn check_git_url(url: &str) -> Result<()> {
    let invalid = |why: &str| {
        Err(UserError::Usage(format!(
            "git URL `{url}` {why}: use `https://HOST/OWNER/REPO(.git)` or `git@HOST:OWNER/REPO.git`"
        )))
    };
    let path = if let Some((scheme, rest)) = url.split_once("://") {
        if !["https", "http", "ssh", "git"].contains(&scheme) {
            return invalid("has an unsupported scheme");
        }
        let Some((host, path)) = rest.split_once('/') else { return invalid("names no owner and repository") };
        let host = host.rsplit('@').next().unwrap_or(host);
        if host.is_empty() {
            return invalid("names no host");
        }
        path
    } else if let Some((user_host, path)) = url.split_once(':') {
        if user_host.is_empty() || user_host.contains('/') {
            return invalid("is not a URL");
        }
        path
    } else {
        return invalid("is not a URL");
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let segments: Vec<&str> = path.split('/').filter(|segment| !segment.is_empty()).collect();
    let repo = segments.last().map(|repo| repo.trim_end_matches(".git")).unwrap_or_default();
    if segments.len() < 2 || repo.is_empty() {
        return invalid("names no owner and repository");
    }
    if url.chars().any(char::is_whitespace) {
        return invalid("contains whitespace");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_owner_and_repo() {
        for url in [
            "https://github.com/acme/infra.git",
            "https://gitlab.example.com/group/sub/infra",
            "git@github.com:acme/infra.git",
            "ssh://git@github.com/acme/infra.git",
        ] {
            assert!(check_git_url(url).is_ok(), "{url}");
        }
    }

    #[test]
    fn rejects_what_the_operator_cannot_clone() {
        for url in
            ["https://github.com/acme", "https://github.com/", "github.com", "ftp://x/a/b", "git@github.com:infra", ""]
        {
            assert!(check_git_url(url).is_err(), "{url}");
        }
    }

    #[test]
    fn exactly_one_reference() {
        let url = "https://github.com/acme/infra";
        assert!(GitSource::new(url, Some("main".into()), Some("abc1234".into())).is_err());
        assert!(GitSource::new(url, None, None).is_err());
        assert!(GitSource::new(url, None, Some("not-a-sha".into())).is_err());
        assert_eq!(
            GitSource::new(url, None, Some("abc1234".into())).unwrap().reference,
            GitReference::Commit("abc1234".into())
        );
    }
}
