//! What several commands share: the loaded provider, the stack check, stack outputs, the `pulumi` lookup, data written to stdout.
pub(crate) mod data_output;
pub(crate) mod input_files;
pub(crate) mod loaded_provider;
pub(crate) mod passphrase_check;
pub(crate) mod planned_run;
pub(crate) mod pulumi_location;
pub(crate) mod shared_stack_file;
pub(crate) mod stack_check;
pub(crate) mod stack_outputs;
