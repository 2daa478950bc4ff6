//! `config/pulumi/Pulumi.<stack>.yaml`: any text parses or fails with a message naming the file.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use runner::config::StackConfig;

fuzz_target!(|text: &str| {
    let path = Path::new("config/pulumi/Pulumi.dev.yaml");
    match StackConfig::parse(path, text.to_string()) {
        Ok(config) => {
            let keys: Vec<String> = config.keys().map(str::to_string).collect();
            for key in &keys {
                let _ = config.get_string(key);
                let _ = config.is_secure(key);
                let _ = config.location_of(key);
            }
            let _ = config.float_warnings();
        }
        Err(err) => {
            let message = err.to_string();
            assert!(message.starts_with("config/pulumi/Pulumi.dev.yaml"), "the error names the file: {message}");
        }
    }
});
