//! A detached tmux session running a script in a workspace: the screen a person would see, the
//! keys they press, a window they resize or close.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::support::Workspace;

pub(crate) struct TmuxSession<'a> {
    workspace: &'a Workspace,
    socket: PathBuf,
}

const SESSION: &str = "runner-test";

impl<'a> TmuxSession<'a> {
    /// Starts `bash -c script` in a `columns` x `rows` window, in the workspace with the same
    /// environment as its pseudo-terminal runs.
    pub(crate) fn start(workspace: &'a Workspace, columns: u16, rows: u16, script: &str) -> Self {
        crate::support::needs_external("tmux");
        if Command::new("tmux").arg("-V").output().is_err() {
            panic!("tmux is required for this test: apt-get install tmux (scripts/test.sh installs it)");
        }
        let session = Self { workspace, socket: workspace.path("tmux.sock") };
        let (columns, rows) = (columns.to_string(), rows.to_string());
        let started =
            session.tmux(&["new-session", "-d", "-s", SESSION, "-x", &columns, "-y", &rows, "bash", "-c", script]);
        assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
        session
    }

    fn tmux(&self, args: &[&str]) -> Output {
        let probe = self.workspace.in_a_terminal("[]", &[]);
        let mut command = Command::new("tmux");
        command.current_dir(self.workspace.root()).env("NO_COLOR", "1");
        for (key, value) in probe.get_envs() {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        command.arg("-S").arg(&self.socket).args(args).output().expect("tmux runs")
    }

    pub(crate) fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", SESSION]).stdout).into_owned()
    }

    /// The screen once `shown` holds for it, or after 60 s (the caller's assertions then say
    /// what was missing).
    pub(crate) fn screen_when(&self, shown: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let screen = self.screen();
            if shown(&screen) || Instant::now() > deadline {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub(crate) fn send_keys(&self, keys: &str) {
        self.tmux(&["send-keys", "-t", SESSION, keys]);
    }

    pub(crate) fn resize(&self, columns: u16) {
        self.tmux(&["resize-window", "-t", SESSION, "-x", &columns.to_string()]);
    }

    /// The terminal goes away: its processes get SIGHUP, as when a window is closed.
    pub(crate) fn close(&self) {
        self.tmux(&["kill-server"]);
    }
}

impl Drop for TmuxSession<'_> {
    fn drop(&mut self) {
        self.close();
    }
}
