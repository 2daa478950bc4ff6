mod kubeconfig_file;
pub use kubeconfig_file::*;
