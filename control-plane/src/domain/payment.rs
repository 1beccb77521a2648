//! Online top-up through an Epay-compatible payment provider: the amount to pay, payment
//! methods, and the MD5 signature of the form and of the provider's notification.

use std::collections::BTreeMap;

use md5::{Digest, Md5};

use super::secrets;

/// Payment methods of the console and the Epay `type` each maps to.
pub fn epay_type(method: &str) -> Option<&'static str> {
    match method {
        "zfb" | "alipay" => Some("alipay"),
        "wx" | "wxpay" => Some("wxpay"),
        _ => None,
    }
}

/// Money to pay for `amount` dollars of quota: amount × price (per dollar) × the group's top-up
/// ratio, in cents precision.
pub fn payable(amount: i64, price: f64, group_ratio: f64) -> f64 {
    ((amount as f64) * price * group_ratio * 100.0).round() / 100.0
}

/// Epay signature: the non-empty parameters except `sign` and `sign_type`, sorted by name,
/// joined as `a=1&b=2`, followed by the merchant key, MD5 in lower-case hex.
pub fn sign(params: &BTreeMap<String, String>, key: &str) -> String {
    let joined = params
        .iter()
        .filter(|(k, v)| !v.is_empty() && k.as_str() != "sign" && k.as_str() != "sign_type")
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    hex::encode(Md5::digest(format!("{joined}{key}").as_bytes()))
}

/// Whether a notification carries a valid signature.
pub fn verify(params: &BTreeMap<String, String>, key: &str) -> bool {
    match params.get("sign") {
        Some(given) if !key.is_empty() => {
            secrets::constant_time_eq(&given.to_ascii_lowercase(), &sign(params, key))
        }
        _ => false,
    }
}

/// A unique order number for a user's top-up.
pub fn trade_no(user_id: i64) -> String {
    format!("USR{user_id}NO{}", secrets::random_alphanumeric(16))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn signature_sorts_skips_empty_and_sign_fields() {
        let p = params(&[
            ("pid", "1001"),
            ("money", "7.30"),
            ("name", "TUC1"),
            ("sign_type", "MD5"),
            ("empty", ""),
        ]);
        let expected = hex::encode(Md5::digest(b"money=7.30&name=TUC1&pid=1001secret"));
        assert_eq!(sign(&p, "secret"), expected);
        let mut signed = p.clone();
        signed.insert("sign".into(), expected.to_uppercase());
        assert!(verify(&signed, "secret"));
        assert!(!verify(&signed, "other"));
        assert!(!verify(&signed, ""));
        signed.insert("money".into(), "0.01".into());
        assert!(
            !verify(&signed, "secret"),
            "a changed amount breaks the signature"
        );
    }

    #[test]
    fn amounts_and_methods() {
        assert_eq!(payable(10, 7.3, 1.0), 73.0);
        assert_eq!(payable(1, 7.3, 0.9), 6.57);
        assert_eq!(epay_type("zfb"), Some("alipay"));
        assert_eq!(epay_type("wx"), Some("wxpay"));
        assert_eq!(epay_type("card"), None);
        assert!(trade_no(5).starts_with("USR5NO"));
    }
}
