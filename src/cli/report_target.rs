use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReportTarget {
    Json(PathBuf),
    Junit(PathBuf),
    /// Resource changes per project, for a pull request or `$GITHUB_STEP_SUMMARY`.
    Markdown(PathBuf),
}

impl ReportTarget {
    /// The file the report goes to, whatever its kind.
    pub(crate) fn path(&self) -> PathBuf {
        match self {
            ReportTarget::Json(path) | ReportTarget::Junit(path) | ReportTarget::Markdown(path) => path.clone(),
        }
    }
}

/// Why a `--report` value is refused; clap prints it after the value.
#[derive(Debug, thiserror::Error)]
pub(super) enum ReportTargetError {
    #[error("`{0}` is not `KIND=FILE`: write `json=report.json` or `junit=report.xml`")]
    NoKind(String),
    #[error("`{0}` names no file")]
    NoFile(String),
    #[error("unknown report kind `{0}`: use `json`, `junit` or `markdown`")]
    UnknownKind(String),
}

pub(super) fn parse_report_target(text: &str) -> Result<ReportTarget, ReportTargetError> {
    let (kind, file) = text.split_once('=').ok_or_else(|| ReportTargetError::NoKind(text.to_string()))?;
    if file.is_empty() {
        return Err(ReportTargetError::NoFile(text.to_string()));
    }
    match kind {
        "json" => Ok(ReportTarget::Json(file.into())),
        "junit" => Ok(ReportTarget::Junit(file.into())),
        "markdown" => Ok(ReportTarget::Markdown(file.into())),
        other => Err(ReportTargetError::UnknownKind(other.to_string())),
    }
}
