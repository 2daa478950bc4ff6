use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportTarget {
    Json(PathBuf),
    Junit(PathBuf),
    /// Resource changes per project, for a pull request or `$GITHUB_STEP_SUMMARY`.
    Markdown(PathBuf),
}

impl ReportTarget {
    /// The file the report goes to, whatever its kind.
    pub fn path(&self) -> PathBuf {
        match self {
            ReportTarget::Json(path) | ReportTarget::Junit(path) | ReportTarget::Markdown(path) => path.clone(),
        }
    }
}

pub(super) fn parse_report_target(text: &str) -> Result<ReportTarget, String> {
    let (kind, file) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not `KIND=FILE`: write `json=report.json` or `junit=report.xml`"))?;
    if file.is_empty() {
        return Err(format!("`{text}` names no file"));
    }
    match kind {
        "json" => Ok(ReportTarget::Json(file.into())),
        "junit" => Ok(ReportTarget::Junit(file.into())),
        "markdown" => Ok(ReportTarget::Markdown(file.into())),
        other => Err(format!("unknown report kind `{other}`: use `json`, `junit` or `markdown`")),
    }
}
