use super::{RunRecord, RunStore};

/// The `pulumi` processes started by runs that ended by themselves. A runner waits for every
/// child before it records its end, so each of these is gone, whatever its pid names today
/// (reused by another process, or on a host this one cannot see, such as a container sharing
/// the checkout).
#[derive(Debug, Clone, Default)]
pub struct EndedProcesses {
    processes: Vec<EndedProcess>,
}

#[derive(Debug, Clone, PartialEq)]
struct EndedProcess {
    run_id: String,
    host: String,
    pid: u32,
    started: f64,
    run_ended: f64,
}

/// Pulumi stamps a lock in whole seconds, after the process started: allow for the rounding.
const STAMP_SLACK: f64 = 1.0;

impl EndedProcesses {
    pub fn of_store(store: &RunStore) -> Self {
        Self::of_runs(&store.runs())
    }

    pub fn of_runs(runs: &[RunRecord]) -> Self {
        let processes = runs
            .iter()
            .filter(|run| run.ended_by_itself())
            .flat_map(|run| {
                let run_ended = run.ended.unwrap_or_default();
                run.pulumi_processes.iter().map(move |process| EndedProcess {
                    run_id: run.run_id.clone(),
                    host: run.host.clone(),
                    pid: process.pid,
                    started: process.started,
                    run_ended,
                })
            })
            .collect();
        Self { processes }
    }

    /// The run whose `pulumi` `pid` on `host` took a lock stamped `locked` (seconds since the
    /// epoch) and has ended since. A lock stamped outside that process's life was taken by
    /// another process with the same pid, so it proves nothing; neither does a missing stamp.
    pub fn ended_run(&self, host: &str, pid: u32, locked: Option<f64>) -> Option<&str> {
        let locked = locked?;
        self.processes
            .iter()
            .find(|process| {
                process.host == host
                    && process.pid == pid
                    && locked >= process.started - STAMP_SLACK
                    && locked <= process.run_ended + STAMP_SLACK
            })
            .map(|process| process.run_id.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{RecordedProcess, RunState};
    use crate::plan::Operation;

    fn run(run_id: &str, state: RunState, ended: Option<f64>, processes: &[(u32, f64)]) -> RunRecord {
        RunRecord {
            run_id: run_id.into(),
            provider: "local".into(),
            stack: "dev".into(),
            operation: Operation::Up,
            state,
            pid: 10,
            host: "ci-box".into(),
            started: 100.0,
            ended,
            projects: Vec::new(),
            recovered_locks: Vec::new(),
            pulumi_processes: processes
                .iter()
                .map(|&(pid, started)| RecordedProcess { project: "vpc".into(), pid, started })
                .collect(),
        }
    }

    /// Only a run that ended by itself proves its processes gone, only for the host and pid it
    /// names, and only for a lock stamped while that process lived: every other shape is
    /// unproven, since the pid may have been given to a new `pulumi` that holds its lock now.
    #[test]
    fn a_lock_is_proven_left_only_by_a_process_of_a_run_that_ended() {
        let runs = [
            run("ended", RunState::Finished, Some(200.0), &[(4242, 110.0)]),
            run("interrupted", RunState::Interrupted, Some(300.0), &[(5151, 250.0)]),
            // Settled after its runner vanished: its pulumi may still run.
            run("abandoned", RunState::Interrupted, None, &[(6161, 120.0)]),
            run("running", RunState::Running, None, &[(7171, 120.0)]),
        ];
        let ended = EndedProcesses::of_runs(&runs);
        let cases = [
            (("ci-box", 4242, Some(110.0)), Some("ended")),
            (("ci-box", 4242, Some(109.5)), Some("ended")),
            (("ci-box", 4242, Some(150.0)), Some("ended")),
            (("ci-box", 5151, Some(260.0)), Some("interrupted")),
            (("ci-box", 4242, Some(100.0)), None),
            (("ci-box", 4242, Some(500.0)), None),
            (("ci-box", 4242, None), None),
            (("laptop", 4242, Some(150.0)), None),
            (("ci-box", 4243, Some(150.0)), None),
            (("ci-box", 6161, Some(130.0)), None),
            (("ci-box", 7171, Some(130.0)), None),
        ];
        for ((host, pid, locked), expected) in cases {
            assert_eq!(ended.ended_run(host, pid, locked), expected, "{host} {pid} {locked:?}");
        }
    }
}
