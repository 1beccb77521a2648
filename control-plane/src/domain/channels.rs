//! Channels: statuses, known types, key lists, and the input rules of spec 2 §5.4.

use crate::i18n::Msg;

pub const STATUS_ENABLED: i64 = 1;
pub const STATUS_DISABLED: i64 = 2;
pub const STATUS_AUTO_DISABLED: i64 = 3;

pub const PRIORITY_MIN: i64 = -999;

/// Channel type numbers in use (new-api numbering; 28–30 and 32 are unused).
pub fn is_known_type(channel_type: i64) -> bool {
    (1..=58).contains(&channel_type) && ![28, 29, 30, 32].contains(&channel_type)
}

/// Types whose `other` field is a region: plain text or a JSON object of model → region.
pub const TYPE_VERTEX: i64 = 41;

/// Keys of a multi-key input: one per line, or comma-separated; blanks dropped. Vertex keys
/// (JSON service accounts) are never split.
pub fn split_keys(channel_type: i64, raw: &str) -> Vec<String> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Vec::new();
    }
    if channel_type == TYPE_VERTEX || raw.starts_with('{') || raw.starts_with('[') {
        return vec![raw.to_string()];
    }
    raw.split(['\n', ','])
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect()
}

/// A comma list with blanks and duplicates dropped (models, groups).
pub fn normalize_list(raw: &str) -> String {
    let mut items: Vec<&str> = Vec::new();
    for item in raw
        .split([',', '\n'])
        .map(str::trim)
        .filter(|i| !i.is_empty())
    {
        if !items.contains(&item) {
            items.push(item);
        }
    }
    items.join(",")
}

/// An optional JSON-object field (`model_mapping`, `setting`, …): empty, or an object.
pub fn check_json_object(field: &str, value: &str) -> Result<(), Msg> {
    if value.trim().is_empty() {
        return Ok(());
    }
    match serde_json::from_str::<serde_json::Value>(value) {
        Ok(serde_json::Value::Object(_)) => Ok(()),
        _ => Err(Msg::ChannelJsonInvalid {
            field: field.to_string(),
        }),
    }
}

/// `other` of a Vertex channel: plain region text or a JSON object.
pub fn check_region(other: &str) -> Result<(), Msg> {
    let other = other.trim();
    if other.starts_with('{')
        && serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(other).is_err()
    {
        return Err(Msg::ChannelRegionInvalid);
    }
    Ok(())
}

pub fn check_priority(priority: i64) -> Result<(), Msg> {
    if priority < PRIORITY_MIN {
        Err(Msg::ChannelPriorityInvalid)
    } else {
        Ok(())
    }
}

pub fn check_weight(weight: i64) -> Result<(), Msg> {
    if weight < 0 {
        Err(Msg::ChannelWeightInvalid)
    } else {
        Ok(())
    }
}

/// A base URL without trailing slashes.
pub fn normalize_base_url(raw: &str) -> String {
    raw.trim().trim_end_matches('/').to_string()
}

/// The reason an automatic disable records in `other_info`.
pub fn other_info(reason: &str, time: i64) -> String {
    serde_json::json!({"status_reason": reason, "status_time": time}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_on_lines_and_commas_except_json() {
        assert_eq!(split_keys(1, "a\nb, c\n\n"), vec!["a", "b", "c"]);
        assert_eq!(split_keys(1, "  "), Vec::<String>::new());
        assert_eq!(
            split_keys(41, "{\"type\":\"service_account\",\"a\":1}").len(),
            1
        );
    }

    #[test]
    fn field_rules() {
        assert_eq!(normalize_list("gpt-4o, ,gpt-4o\nclaude"), "gpt-4o,claude");
        assert!(check_json_object("model_mapping", "").is_ok());
        assert!(check_json_object("model_mapping", "{\"a\":\"b\"}").is_ok());
        assert!(check_json_object("model_mapping", "[1]").is_err());
        assert!(check_json_object("setting", "{oops").is_err());
        assert!(check_region("us-central1").is_ok());
        assert!(check_region("{\"default\":\"us-east5\"}").is_ok());
        assert_eq!(check_region("{bad"), Err(Msg::ChannelRegionInvalid));
        assert!(check_priority(-999).is_ok() && check_priority(-1000).is_err());
        assert!(check_weight(0).is_ok() && check_weight(-1).is_err());
        assert_eq!(
            normalize_base_url(" https://api.example.com/// "),
            "https://api.example.com"
        );
        assert!(
            is_known_type(1)
                && is_known_type(58)
                && !is_known_type(29)
                && !is_known_type(0)
                && !is_known_type(99)
        );
    }
}
