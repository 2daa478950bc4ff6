//! The terminal is put back as it was on every way out: a prompt interrupted with Ctrl-C, a run
//! interrupted or finished, a panic. Prompts turn echo off (secrets) and hide the cursor; a run
//! turns keyboard echo off so keys pressed (and `^C`) cannot break the live progress lines.

use std::io::{IsTerminal, Write};
use std::sync::OnceLock;

use rustix::termios::{tcgetattr, tcsetattr, LocalModes, OptionalActions, Termios};

/// The terminal settings of standard input as the runner found them: what every exit restores.
/// Kept once per process and only read afterwards, so a signal handler may read it.
static ORIGINAL: OnceLock<Termios> = OnceLock::new();

const SHOW_CURSOR: &[u8] = b"\x1b[?25h";

/// Remembers how the terminal was; later calls keep the first answer.
fn remember_original() -> Option<&'static Termios> {
    if let Some(saved) = ORIGINAL.get() {
        return Some(saved);
    }
    if !std::io::stdin().is_terminal() {
        return None;
    }
    let settings = tcgetattr(std::io::stdin()).ok()?;
    Some(ORIGINAL.get_or_init(|| settings))
}

/// Sets standard input's terminal to `settings` at once; false when it cannot.
fn apply(settings: &Termios) -> bool {
    tcsetattr(rustix::stdio::stdin(), OptionalActions::Now, settings).is_ok()
}

/// Puts the remembered settings back and shows the cursor, if stderr is a terminal.
pub(crate) fn restore_terminal() {
    if let Some(saved) = ORIGINAL.get() {
        apply(saved);
    }
    if std::io::stderr().is_terminal() {
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(SHOW_CURSOR);
        let _ = stderr.flush();
    }
}

/// Only async-signal-safe calls: tcsetattr and write (system calls on data that is never
/// written again), then _exit.
#[allow(unsafe_code)]
extern "C" fn restore_and_exit(_signal: libc::c_int) {
    if let Some(saved) = ORIGINAL.get() {
        apply(saved);
    }
    let _ = rustix::io::write(rustix::stdio::stderr(), b"\x1b[?25h\ninterrupted: nothing more was done\n");
    // SAFETY: leaves at once with the interrupt's code, running nothing else of this process.
    unsafe { libc::_exit(130) }
}

/// While it lives, Ctrl-C at a prompt restores the terminal (echo, cursor) before the runner
/// exits with 130, instead of dying with echo off after a secret prompt. Dropped, Ctrl-C gets its
/// default action back, before the run's own handler takes over.
pub(crate) struct PromptInterruptGuard {
    installed: bool,
}

impl PromptInterruptGuard {
    pub(crate) fn install() -> Self {
        if remember_original().is_none() {
            return Self { installed: false };
        }
        // SAFETY: a zeroed sigaction with a handler that only uses async-signal-safe calls.
        #[allow(unsafe_code)]
        let installed = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = restore_and_exit as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut()) == 0
        };
        Self { installed }
    }
}

impl Drop for PromptInterruptGuard {
    fn drop(&mut self) {
        if self.installed {
            // SAFETY: back to the default action.
            #[allow(unsafe_code)]
            unsafe {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
            }
        }
    }
}

/// While it lives, keys typed during a run are not echoed (a `^C` or an Enter would push the
/// live lines down and leave stale copies), and Ctrl-C no longer flushes pending output; the
/// keyboard still sends signals. Dropped, the terminal is as it was and the cursor visible.
pub(crate) struct QuietKeyboard {
    active: bool,
}

impl QuietKeyboard {
    pub(crate) fn start() -> Self {
        let Some(original) = remember_original() else { return Self { active: false } };
        let mut quiet = original.clone();
        quiet.local_modes &= !(LocalModes::ECHO | LocalModes::ECHOCTL | LocalModes::ECHONL);
        quiet.local_modes |= LocalModes::NOFLSH;
        Self { active: apply(&quiet) }
    }
}

impl Drop for QuietKeyboard {
    fn drop(&mut self) {
        if self.active {
            restore_terminal();
        }
    }
}
