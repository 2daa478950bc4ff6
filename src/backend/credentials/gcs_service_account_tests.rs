use super::*;

/// A key made for this test only (`openssl genpkey -algorithm RSA`); it signs nothing else.
const TEST_KEY: &str = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCwRKGSz39JabZI\nTR0zeekyE3hPliD+7gUl+Fe1WPLAIhwRi0MX1n0TknlK7aA9JbdFcP2DPvSjvZTm\n3H+tGtkEyptPGD9sxnzhi2Es/tu4FNYlTI79yIWpq6+cICHcZaTLSz+KnZsRD/AC\ni3kB/orSmduMnMTf6bUZE+kAClhv40dC2dcjmtm6a/+ag5MTRn9/Ni1211hG8p5f\nWxo+f16JUKNuX/W0uH7qclsqZZfbs0EAg/LpD5XRRD9u/SliadFp3iU0GsnKjRP+\nJcg2Y9BWVCXk+31nyvaljuk8hHyLeFH5TIEEEoGYUR9I0DyGeQ6AG8RnHXhSUGab\ninD3l/+pAgMBAAECggEAAcV2lcsGbYmW2t3DhMUJwfy8QV47zfw8qCLLf3XiumnD\nFNuXSCrw786Rmow1irdbQtKJ72VGO1H79vRqGUc1QJXEO+LpwAy6YMyhYuDbcNtw\nB3ohz+I0Aiw0+JHim2E8eC1mTgrjxoY/UqrqjWPv77aGnc2PqE5vkvj3jm1kzY6D\nDUPcYCxXWO7bu2uJ8w3afp9FgOljLcvCVsvrkqh5sQFkLlDljMe5MvKYQTBPzWaZ\nMp6d/HChrmZS4Nrxv5Aeu312xztrBxPPEEyZ2neiEYXw2cT02DhtCgFvaajGWQT0\n0eJY3vjeokUFsCqVT5ezXEo3GYcRHvK8GOwopZhAjQKBgQDaMSDYSvYnmVqngXH2\nw9Df6uTjieWJAJVvWfSlNpwy6DZzW4o2op4QilU50lSKFHJ+P6TmGzKb+N+n4q14\nz0VpL/gjxZNv2ST3ceF8FO1h0BfYndCc/uM0orPy+wmzGLqNK2zdZarywSF4PguQ\nH9SGhimG07KyMHcg75XQnBukCwKBgQDOz8kfPtMRnXwCs/BbXWFOiv1eTnQNSZZk\nHjoH0+5bYhvzAq2m222c8vd02eeVwksLDuyg8zLGGEx+WhjgWSqC/UXus9UAkQfL\n2owy+kNXqMmG8xT4SqFcQrz9AasajyX8RbDM1l6uXJFBQaj/y6SRv2Lay0vsaMUA\nb205U1onmwKBgBJhiyPNhNknKSTtWb1xF5qVfjzQ9B5Lh0s/J8X3SMddGqEzN/yM\nTIaWMMHTPz32pQKPuAOOjP/owmaxSO3hgDZxTRUuYtJMV7nkxRsf5DOWRTwBZ36i\nVl+ryT8R+Oo2jhiwbNZl5zXWIUyw5WZ51/yRNtRd5zLttEt5A4T0cburAoGAXjFj\nH/kENxysM6ryyRohzJ0fQwmmb7rZZWYi9he/kx1/L1JD9yAvr3E15aGtiZcBiNrW\nSYQa1wCQLmgotl3GL/zdEhgT5nsnuuAiRMGZVF6K0wz5uxB6p8O5wd41qRYTre+r\n08+7NdzxR3B5YW/F15/8jTxUqysYttcJPzfIcwsCgYEAmm564viRmiP4O2hjn6ID\nPHm21qxR+WNirbEutDfe03GEghFXdpTiebzUyhNkSe1AF3OxIvae/8q8+1fHbWN5\nUF21RlPdW9Y+PAKLO4ipc0j0Ly3Opu81wO9WfDWSGmEEslldjcaspNU2HuZq94bQ\nfHvFATgMmIoxc3IkOsw2ozY=\n-----END PRIVATE KEY-----";

pub(crate) const TOKEN_ANSWER: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 43\r\nconnection: close\r\n\r\n{\"access_token\":\"ya29.test\",\"expires_in\":9}";

pub(crate) fn key_json(token_uri: &str) -> String {
    serde_json::json!({
        "type": "service_account", "client_email": "runner@test.iam.gserviceaccount.com",
        "private_key": TEST_KEY, "token_uri": token_uri,
    })
    .to_string()
}

/// The assertion is an RS256 JWT Google accepts: its claims name the account, the token URI and
/// the storage scope, and its signature verifies with the key's public half.
#[test]
fn the_assertion_is_a_signed_jwt_for_the_token_uri() {
    let account: GcsServiceAccount = serde_json::from_str(&key_json("https://oauth2.test/token")).unwrap();
    let jwt = account.assertion(1_800_000_000).unwrap();
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3, "{jwt}");
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let claims: serde_json::Value = serde_json::from_slice(&engine.decode(parts[1]).unwrap()).unwrap();
    assert_eq!(claims["iss"], "runner@test.iam.gserviceaccount.com");
    assert_eq!((claims["aud"].as_str(), claims["scope"].as_str()), (Some("https://oauth2.test/token"), Some(SCOPE)));
    assert_eq!((claims["iat"].as_i64(), claims["exp"].as_i64()), (Some(1_800_000_000), Some(1_800_003_600)));
    let der: String = TEST_KEY.lines().filter(|line| !line.starts_with("-----")).collect();
    let pair = RsaKeyPair::from_pkcs8(&base64::engine::general_purpose::STANDARD.decode(der).unwrap()).unwrap();
    let public =
        ring::signature::UnparsedPublicKey::new(&ring::signature::RSA_PKCS1_2048_8192_SHA256, pair.public().as_ref());
    public.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &engine.decode(parts[2]).unwrap()).unwrap();
}

/// A key that is not PKCS #8 RSA is named so, without its text.
#[test]
fn a_broken_key_is_named_without_its_text() {
    let account = GcsServiceAccount {
        client_email: "runner@test".into(),
        private_key: "-----BEGIN PRIVATE KEY-----\nMIIsecret\n-----END PRIVATE KEY-----\n".into(),
        token_uri: super::super::gcs_credentials::google_token_uri(),
    };
    let error = account.assertion(0).unwrap_err().to_string();
    assert!(error.contains("not a PKCS #8 RSA key") && !error.contains("MII"), "{error}");
}
