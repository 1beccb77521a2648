//! Model ids on Bedrock: Anthropic's model names mapped to Bedrock ids, and the
//! cross-region inference profile prefix (`us.`, `eu.`, `apac.`, `global.`) for models
//! Bedrock serves only through an inference profile.

/// Geographies of the system inference profiles a model has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Geos {
    us: bool,
    eu: bool,
    apac: bool,
    global: bool,
}

const US: Geos = Geos {
    us: true,
    eu: false,
    apac: false,
    global: false,
};
const US_EU_APAC: Geos = Geos {
    us: true,
    eu: true,
    apac: true,
    global: false,
};
const ALL: Geos = Geos {
    us: true,
    eu: true,
    apac: true,
    global: true,
};

/// Anthropic name, Bedrock id, and the profiles when the model has no on-demand
/// (in-region) throughput: it must be called through one (Claude 3.7 and later).
const CLAUDE: &[(&str, &str, Option<Geos>)] = &[
    (
        "claude-3-haiku-20240307",
        "anthropic.claude-3-haiku-20240307-v1:0",
        None,
    ),
    (
        "claude-3-sonnet-20240229",
        "anthropic.claude-3-sonnet-20240229-v1:0",
        None,
    ),
    (
        "claude-3-opus-20240229",
        "anthropic.claude-3-opus-20240229-v1:0",
        None,
    ),
    (
        "claude-3-5-sonnet-20240620",
        "anthropic.claude-3-5-sonnet-20240620-v1:0",
        None,
    ),
    (
        "claude-3-5-sonnet-20241022",
        "anthropic.claude-3-5-sonnet-20241022-v2:0",
        None,
    ),
    (
        "claude-3-5-haiku-20241022",
        "anthropic.claude-3-5-haiku-20241022-v1:0",
        None,
    ),
    (
        "claude-3-7-sonnet-20250219",
        "anthropic.claude-3-7-sonnet-20250219-v1:0",
        Some(US_EU_APAC),
    ),
    (
        "claude-sonnet-4-20250514",
        "anthropic.claude-sonnet-4-20250514-v1:0",
        Some(ALL),
    ),
    (
        "claude-opus-4-20250514",
        "anthropic.claude-opus-4-20250514-v1:0",
        Some(US),
    ),
    (
        "claude-opus-4-1-20250805",
        "anthropic.claude-opus-4-1-20250805-v1:0",
        Some(US),
    ),
    (
        "claude-sonnet-4-5-20250929",
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        Some(ALL),
    ),
    (
        "claude-haiku-4-5-20251001",
        "anthropic.claude-haiku-4-5-20251001-v1:0",
        Some(ALL),
    ),
    (
        "claude-opus-4-5-20251101",
        "anthropic.claude-opus-4-5-20251101-v1:0",
        Some(ALL),
    ),
];

/// Prefixes of system inference profiles (a model id starting with one is already a
/// profile id).
const PROFILE_PREFIXES: [&str; 7] = ["us.", "eu.", "apac.", "global.", "us-gov.", "jp.", "au."];

/// The Bedrock id of an Anthropic model name (`claude-3-5-sonnet-20241022` →
/// `anthropic.claude-3-5-sonnet-20241022-v2:0`); any other name as given.
pub fn bedrock_model_id(model: &str) -> &str {
    CLAUDE
        .iter()
        .find(|(name, _, _)| *name == model)
        .map_or(model, |(_, id, _)| id)
}

/// The model id to call in `region`: the Bedrock id of `model` ([`bedrock_model_id`]), with
/// the inference profile prefix when the model can only be called through one: the
/// region's geography (`us-*` and `ca-*` → `us.`, `eu-*` → `eu.`, `ap-*` → `apac.`) when the
/// model has a profile there, else `global.` when it has a global one, else no prefix (the
/// call will show AWS's own error). Ids already prefixed, ARNs and unknown names pass as
/// given.
pub fn resolve_model(model: &str, region: &str) -> String {
    let id = bedrock_model_id(model);
    if PROFILE_PREFIXES.iter().any(|p| id.starts_with(p)) {
        return id.to_owned();
    }
    let Some(geos) = CLAUDE
        .iter()
        .find(|(_, bid, _)| *bid == id)
        .and_then(|(_, _, geos)| *geos)
    else {
        return id.to_owned();
    };
    let prefix = match geography(region) {
        Some("us") if geos.us => "us.",
        Some("eu") if geos.eu => "eu.",
        Some("apac") if geos.apac => "apac.",
        Some("us-gov") => "us-gov.",
        _ if geos.global => "global.",
        _ => "",
    };
    format!("{prefix}{id}")
}

/// The profile geography of a region.
fn geography(region: &str) -> Option<&'static str> {
    let region = region.to_ascii_lowercase();
    if region.starts_with("us-gov-") {
        Some("us-gov")
    } else if region.starts_with("us-") || region.starts_with("ca-") {
        Some("us")
    } else if region.starts_with("eu-") {
        Some("eu")
    } else if region.starts_with("ap-") {
        Some("apac")
    } else {
        None
    }
}

/// Whether a Bedrock model id (bare, profile-prefixed or a foundation-model or profile ARN
/// naming it) is an Anthropic Claude model, called with Anthropic's Messages body.
pub fn is_claude(model_id: &str) -> bool {
    model_id.contains("anthropic.claude")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_names_and_adds_profiles_where_needed() {
        assert_eq!(
            resolve_model("claude-3-5-sonnet-20241022", "us-east-1"),
            "anthropic.claude-3-5-sonnet-20241022-v2:0"
        );
        assert_eq!(
            resolve_model("claude-3-7-sonnet-20250219", "us-west-2"),
            "us.anthropic.claude-3-7-sonnet-20250219-v1:0"
        );
        assert_eq!(
            resolve_model("claude-sonnet-4-20250514", "eu-central-1"),
            "eu.anthropic.claude-sonnet-4-20250514-v1:0"
        );
        assert_eq!(
            resolve_model("claude-sonnet-4-5-20250929", "ap-northeast-1"),
            "apac.anthropic.claude-sonnet-4-5-20250929-v1:0"
        );
        assert_eq!(
            resolve_model("claude-haiku-4-5-20251001", "ca-central-1"),
            "us.anthropic.claude-haiku-4-5-20251001-v1:0"
        );
        // Opus 4.1 has a US profile only; in Europe the bare id (AWS answers why).
        assert_eq!(
            resolve_model("claude-opus-4-1-20250805", "eu-west-1"),
            "anthropic.claude-opus-4-1-20250805-v1:0"
        );
        // No geography: the global profile when there is one.
        assert_eq!(
            resolve_model("claude-sonnet-4-5-20250929", "sa-east-1"),
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0"
        );
        // A Bedrock id is prefixed too, a prefixed one never twice.
        assert_eq!(
            resolve_model("anthropic.claude-sonnet-4-20250514-v1:0", "us-east-1"),
            "us.anthropic.claude-sonnet-4-20250514-v1:0"
        );
        for given in [
            "us.anthropic.claude-sonnet-4-20250514-v1:0",
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "amazon.nova-pro-v1:0",
            "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc",
        ] {
            assert_eq!(resolve_model(given, "us-east-1"), given);
        }
    }

    #[test]
    fn tells_claude_ids() {
        assert!(is_claude("anthropic.claude-3-5-haiku-20241022-v1:0"));
        assert!(is_claude("eu.anthropic.claude-sonnet-4-20250514-v1:0"));
        assert!(!is_claude("amazon.nova-lite-v1:0"));
        assert!(!is_claude("meta.llama3-70b-instruct-v1:0"));
    }
}
