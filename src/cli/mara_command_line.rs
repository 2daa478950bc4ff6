//! MARA's command line, `runner -p aws -s dev up`: its `-p/--provider` and `-s/--stack` come
//! before the operation. They are moved after it, where this runner's subcommands read them.
//! MARA's `-d/--debug` becomes `--verbose` for the operations that run projects; its
//! `-b/--banner-type` (the look of its banner) is dropped.

use std::ffi::OsString;

/// Subcommands (and MARA's aliases) that take `--provider`.
const TAKE_PROVIDER: &[&str] =
    &["show", "show-execution", "validate", "up", "preview", "refresh", "destroy", "down", "status", "doctor"];
/// Subcommands (and MARA's aliases) that take `--stack`.
const TAKE_STACK: &[&str] =
    &["show", "show-execution", "validate", "up", "preview", "refresh", "destroy", "down", "status", "history"];
/// Subcommands that run projects, where MARA's `-d/--debug` means `--verbose`.
const TAKE_VERBOSE: &[&str] = &["up", "preview", "refresh", "destroy", "down"];
/// Subcommands MARA accepts the options with but that need neither.
const IGNORE_BOTH: &[&str] = &["providers", "list-providers"];

/// Moves `-p/--provider` and `-s/--stack` given before the subcommand to just after it.
/// Anything else is left where it is, for clap to judge.
pub(crate) fn reorder_mara_options<I, T>(args: I) -> Vec<OsString>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let mut kept: Vec<OsString> = Vec::new();
    let mut moved: Vec<(bool, Vec<OsString>)> = Vec::new();
    let mut debug = false;
    let mut mara_only = false;
    let mut index = 0;
    let mut subcommand = None;
    while index < args.len() {
        let arg = args[index].to_string_lossy().into_owned();
        if index == 0 {
            kept.push(args[index].clone());
            index += 1;
            continue;
        }
        let option = |long: &str, short: &str| {
            arg == long
                || arg == short
                || arg.starts_with(&format!("{long}="))
                || (arg.starts_with(short) && arg.len() > 2)
        };
        let takes_value = |long: &str, short: &str| arg == long || arg == short;
        if option("--provider", "-p") || option("--stack", "-s") {
            let is_provider = option("--provider", "-p");
            let mut group = vec![args[index].clone()];
            if (takes_value("--provider", "-p") || takes_value("--stack", "-s")) && index + 1 < args.len() {
                group.push(args[index + 1].clone());
                index += 1;
            }
            moved.push((is_provider, group));
            index += 1;
            continue;
        }
        if arg == "-d" || arg == "--debug" {
            debug = true;
            mara_only = true;
            index += 1;
            continue;
        }
        if (arg == "-b" || arg == "--banner-type") && index + 1 < args.len() {
            mara_only = true;
            index += 2;
            continue;
        }
        if arg.starts_with("--banner-type=") {
            mara_only = true;
            index += 1;
            continue;
        }
        if arg == "--root" && index + 1 < args.len() {
            kept.push(args[index].clone());
            kept.push(args[index + 1].clone());
            index += 2;
            continue;
        }
        if arg.starts_with('-') {
            kept.push(args[index].clone());
            index += 1;
            continue;
        }
        subcommand = Some((kept.len(), arg));
        break;
    }
    let Some((position, name)) = subcommand.filter(|_| !moved.is_empty() || mara_only) else { return args };
    kept.extend(args[index..].iter().cloned());
    let accepted: Vec<OsString> = moved
        .into_iter()
        .filter(|(is_provider, _)| {
            if IGNORE_BOTH.contains(&name.as_str()) {
                return false;
            }
            let list = if *is_provider { TAKE_PROVIDER } else { TAKE_STACK };
            // Unknown subcommands keep the option, so clap names the real problem.
            list.contains(&name.as_str()) || !is_known(&name)
        })
        .flat_map(|(_, group)| group)
        .chain((debug && TAKE_VERBOSE.contains(&name.as_str())).then(|| OsString::from("--verbose")))
        .collect();
    kept.splice(position + 1..position + 1, accepted);
    kept
}

fn is_known(name: &str) -> bool {
    TAKE_PROVIDER.contains(&name) || TAKE_STACK.contains(&name) || IGNORE_BOTH.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::reorder_mara_options;

    fn reorder(line: &str) -> String {
        reorder_mara_options(line.split(' '))
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn mara_s_order_becomes_ours() {
        assert_eq!(reorder("runner -p aws -s dev up"), "runner up -p aws -s dev");
        assert_eq!(
            reorder("runner --provider=aws --stack dev down --yes"),
            "runner down --provider=aws --stack dev --yes"
        );
        assert_eq!(
            reorder("runner --root /x -paws -sdev show-execution"),
            "runner --root /x show-execution -paws -sdev"
        );
    }

    #[test]
    fn mara_s_debug_and_banner_options_are_understood() {
        assert_eq!(reorder("runner -d -b fabulous -p aws -s dev up"), "runner up -p aws -s dev --verbose");
        assert_eq!(reorder("runner --debug -p aws show-execution"), "runner show-execution -p aws");
        assert_eq!(reorder("runner --banner-type=boring list-providers"), "runner list-providers");
    }

    #[test]
    fn our_order_is_left_alone() {
        assert_eq!(reorder("runner up --provider aws -s dev"), "runner up --provider aws -s dev");
        assert_eq!(reorder("runner show -p aws"), "runner show -p aws");
    }

    #[test]
    fn options_a_subcommand_does_not_take_are_dropped_only_where_mara_ignores_them() {
        assert_eq!(reorder("runner -p aws -s dev list-providers"), "runner list-providers");
        assert_eq!(reorder("runner -s dev history"), "runner history -s dev");
        assert_eq!(reorder("runner -p aws history"), "runner history");
        assert_eq!(reorder("runner -p aws frobnicate"), "runner frobnicate -p aws");
    }
}
