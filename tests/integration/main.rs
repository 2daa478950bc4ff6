//! One integration test binary: each module drives the real `runner` binary in a temporary repository.

mod kube_api_server;
mod mara_checkout;
mod object_store;
mod support;

mod affected_test;
mod cancelled_destroy_test;
mod doctor_test;
mod errors_test;
mod fake_pulumi_shape_test;
mod history_retention_test;
mod hostile_input_test;
mod https_gate_test;
mod kubeconfig_care_test;
mod local_provider_test;
mod mara_checkout_test;
mod module_layers_test;
mod ordering_test;
mod pko_export_test;
mod preflight_real_test;
mod prompt_test;
mod provider_key_errors_test;
mod real_error_test;
mod record_integrity_test;
mod recovery_test;
mod run_fake_pulumi_test;
mod run_real_pulumi_test;
mod s3_backend_test;
mod scheduling_test;
mod secret_canary_test;
mod seed_prerequisite_test;
mod show_test;
mod team_workflows_test;
mod terminal_colour_test;
mod unlock_test;
mod validate_test;
