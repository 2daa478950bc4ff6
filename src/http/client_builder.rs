/// A reqwest client builder on rustls with `ring`, the one crypto provider the runner ships
/// (aws-lc-rs, reqwest's default, needs cmake and grows the binary). reqwest 0.13 takes the
/// process's default provider, so it is installed once before the first client is built.
pub(crate) fn http_client_builder() -> reqwest::ClientBuilder {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // Refused only when a provider is installed already, which then serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

#[cfg(test)]
mod tests {
    #[test]
    fn clients_build_on_ring() {
        super::http_client_builder().build().expect("a client");
        let provider = rustls::crypto::CryptoProvider::get_default().expect("a default provider");
        assert!(provider.cipher_suites.iter().any(|suite| format!("{suite:?}").contains("TLS13")));
    }
}
