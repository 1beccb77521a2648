//! Per-channel request shaping: the channel's system prompt, the OpenAI parameter fixes, the
//! optional-field policy, `param_override` and `header_override`, parsed once per config
//! snapshot into a [`ChannelShaping`] and applied per attempt to the outbound JSON body and
//! headers. Pure: no I/O, no clock.
//!
//! Per attempt the relay calls [`ChannelShaping::shape_body`] on the body (already converted
//! to the channel's dialect, model mapped), then [`ChannelShaping::upstream_headers`] with the
//! header edits it returned, and applies those headers after its own (auth, content type).
//! Order inside `shape_body`, as new-api: system prompt → OpenAI fixes → field policy → param
//! override (which sees the model after the fixes).
//!
//! Cost: a channel without rules costs nothing ([`ChannelShaping::needs_body`] says when the
//! body must be a `Value` at all). Otherwise the work is proportional to the rules and the
//! parts of the body they touch: regexes and paths are compiled at parse time, nothing is
//! re-serialised, and header edits are a short vector.

mod apply;
mod conditions;
mod context;
mod header_ops;
pub mod headers;
pub mod openai_fixes;
pub mod param_override;
mod path;
pub mod system_prompt;
#[cfg(test)]
mod tests_headers;
#[cfg(test)]
mod tests_param;

use serde_json::Value;

pub use context::OverrideContext;
pub use headers::{HeaderContext, HeaderEdits, HeaderOverride, UpstreamHeaders, resolve_headers};
pub use openai_fixes::{FieldPolicy, FixOutcome};
pub use param_override::{OverrideReturnError, ParamOverride};
pub use system_prompt::{PromptOutcome, PromptShape, SystemPrompt, SystemPromptMode};

/// Why shaping refused a channel's config or failed an attempt. Messages name paths, modes
/// and header names, never header values or keys.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapingError {
    /// The channel's `param_override` cannot be used (found when parsing).
    #[error("param override is invalid: {0}")]
    ParamOverrideInvalid(String),
    /// The channel's `header_override` cannot be used (found when parsing).
    #[error("header override is invalid: {0}")]
    HeaderOverrideInvalid(String),
    /// The channel's settings JSON cannot be read.
    #[error("channel setting is invalid: {0}")]
    SettingInvalid(String),
    /// A param override rule could not apply to this request.
    #[error("param override failed: {0}")]
    ParamOverrideFailed(String),
    /// A header value could not be built for this request.
    #[error("header override failed: {0}")]
    HeaderOverrideFailed(String),
    /// A `return_error` rule matched.
    #[error("{}", .0.message)]
    ReturnError(OverrideReturnError),
}

impl ShapingError {
    /// Stable low-cardinality code for metrics and logs.
    pub fn code(&self) -> &'static str {
        match self {
            ShapingError::ParamOverrideInvalid(_) => "param_override_invalid",
            ShapingError::HeaderOverrideInvalid(_) => "header_override_invalid",
            ShapingError::SettingInvalid(_) => "channel_setting_invalid",
            ShapingError::ParamOverrideFailed(_) => "param_override_failed",
            ShapingError::HeaderOverrideFailed(_) => "header_override_failed",
            ShapingError::ReturnError(_) => "override_return_error",
        }
    }

    /// The HTTP status to answer with when no other channel is tried: the rule's for
    /// `return_error`, 500 otherwise (a channel misconfiguration, not the client's fault).
    pub fn status(&self) -> u16 {
        match self {
            ShapingError::ReturnError(e) => e.status,
            _ => 500,
        }
    }

    /// Whether the relay may try another channel: always, except for a `return_error` rule
    /// with `skip_retry` (its default).
    pub fn retryable(&self) -> bool {
        match self {
            ShapingError::ReturnError(e) => !e.skip_retry,
            _ => true,
        }
    }
}

/// The body dialect the channel is sent, deciding which shaping applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyDialect {
    /// OpenAI Chat Completions: system prompt, reasoning-model fixes, field policy.
    OpenAiChat,
    /// OpenAI Responses: system prompt (`instructions`), effort suffix, field policy.
    OpenAiResponses,
    /// Anthropic Messages: system prompt, field policy.
    Anthropic,
    /// Gemini generateContent: system prompt.
    Gemini,
    /// Anything else (embeddings, images…): param override only.
    Other,
}

impl BodyDialect {
    fn prompt_shape(self) -> Option<PromptShape> {
        match self {
            BodyDialect::OpenAiChat => Some(PromptShape::OpenAiChat),
            BodyDialect::OpenAiResponses => Some(PromptShape::OpenAiResponses),
            BodyDialect::Anthropic => Some(PromptShape::Anthropic),
            BodyDialect::Gemini => Some(PromptShape::Gemini),
            BodyDialect::Other => None,
        }
    }
}

/// The channel's stored texts shaping reads. Empty texts mean "not configured".
#[derive(Debug, Clone, Copy, Default)]
pub struct ShapingSource<'a> {
    /// `param_override`.
    pub param_override: &'a str,
    /// `header_override` (JSON object text).
    pub header_override: &'a str,
    /// The channel settings JSON (new-api's `setting` and `settings` keys): `system_prompt`,
    /// `system_prompt_override`, `allow_service_tier`, `allow_safety_identifier`,
    /// `allow_inference_geo`, `allow_speed`, `allow_include_obfuscation`, `disable_store`.
    /// Other keys are ignored.
    pub settings: &'a str,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct PromptSettings {
    system_prompt: Option<String>,
    system_prompt_override: Option<bool>,
}

/// What [`ChannelShaping::shape_body`] changed besides the body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShapeOutcome {
    /// Header edits from param override: pass to [`ChannelShaping::upstream_headers`].
    pub header_edits: HeaderEdits,
    /// The model now sent upstream, when an effort suffix was removed.
    pub upstream_model: Option<String>,
    /// The request's reasoning effort after the fixes (log field `reasoning_effort`).
    pub reasoning_effort: Option<String>,
    /// A client system prompt was prepended to or replaced (log `is_system_prompt_overwritten`).
    pub system_prompt_overwritten: bool,
}

/// One channel's parsed shaping rules. Build once per config snapshot with
/// [`ChannelShaping::parse`]; cheap to share (`Arc`) across requests.
#[derive(Debug, Clone, Default)]
pub struct ChannelShaping {
    param_override: Option<ParamOverride>,
    header_override: Option<HeaderOverride>,
    system_prompt: Option<SystemPrompt>,
    fields: FieldPolicy,
}

impl ChannelShaping {
    /// Parses every rule of a channel; a bad rule refuses the channel with its code.
    pub fn parse(src: &ShapingSource<'_>) -> Result<ChannelShaping, ShapingError> {
        Ok(ChannelShaping {
            param_override: ParamOverride::parse(src.param_override)?,
            header_override: HeaderOverride::parse(src.header_override)?,
            system_prompt: parse_prompt(src.settings)?,
            fields: FieldPolicy::parse(src.settings)?,
        })
    }

    /// Replaces the header override (e.g. built from the snapshot's header map with
    /// [`HeaderOverride::from_pairs`]).
    pub fn with_header_override(mut self, header_override: Option<HeaderOverride>) -> Self {
        self.header_override = header_override;
        self
    }

    /// Whether [`Self::shape_body`] may change `raw_body` of `dialect` for `upstream_model`:
    /// when false the relay can send the body as it is, without parsing it into a `Value`.
    /// Costs a few byte searches of the body at most.
    pub fn needs_body(&self, dialect: BodyDialect, upstream_model: &str, raw_body: &[u8]) -> bool {
        let prompt = self.system_prompt.is_some() && dialect.prompt_shape().is_some();
        let fixes = match dialect {
            BodyDialect::OpenAiChat => openai_fixes::is_reasoning_model(upstream_model),
            BodyDialect::OpenAiResponses => {
                openai_fixes::split_effort_suffix(upstream_model).is_some()
            }
            _ => false,
        };
        let fields = matches!(
            dialect,
            BodyDialect::OpenAiChat | BodyDialect::OpenAiResponses | BodyDialect::Anthropic
        ) && self.fields.may_apply(raw_body);
        self.param_override.is_some() || prompt || fixes || fields
    }

    /// Whether [`Self::upstream_headers`] can add anything without param override edits.
    pub fn has_header_override(&self) -> bool {
        self.header_override.is_some()
    }

    /// Shapes one attempt's body in place. `ctx.upstream_model` is the mapped model;
    /// `ctx.header_override` is filled in here. Errors: `param_override_failed` (try another
    /// channel) or `override_return_error` (see [`ShapingError::retryable`]).
    pub fn shape_body(
        &self,
        body: &mut Value,
        dialect: BodyDialect,
        ctx: &OverrideContext<'_>,
    ) -> Result<ShapeOutcome, ShapingError> {
        let mut out = ShapeOutcome::default();
        if let (Some(sp), Some(shape)) = (&self.system_prompt, dialect.prompt_shape()) {
            out.system_prompt_overwritten = sp.apply(body, shape).overwritten;
        }
        let fix = match dialect {
            BodyDialect::OpenAiChat => openai_fixes::fix_chat(body, ctx.upstream_model),
            BodyDialect::OpenAiResponses => openai_fixes::fix_responses(body, ctx.upstream_model),
            _ => FixOutcome::default(),
        };
        if matches!(
            dialect,
            BodyDialect::OpenAiChat | BodyDialect::OpenAiResponses | BodyDialect::Anthropic
        ) {
            self.fields.apply(body);
        }
        if let Some(po) = &self.param_override {
            let ctx = OverrideContext {
                upstream_model: fix.upstream_model.as_deref().unwrap_or(ctx.upstream_model),
                header_override: self.header_override.as_ref(),
                ..*ctx
            };
            out.header_edits = po.apply(body, &ctx)?;
        }
        out.upstream_model = fix.upstream_model;
        out.reasoning_effort = fix.reasoning_effort;
        Ok(out)
    }

    /// The headers to set on and remove from the upstream request, after the relay's own.
    /// Error: `header_override_failed` (a resolved value is not a valid header value).
    pub fn upstream_headers(
        &self,
        edits: &HeaderEdits,
        ctx: &HeaderContext<'_>,
    ) -> Result<UpstreamHeaders, ShapingError> {
        if self.header_override.is_none() && edits.is_empty() {
            return Ok(UpstreamHeaders::default());
        }
        resolve_headers(self.header_override.as_ref(), edits, ctx)
    }
}

fn parse_prompt(settings: &str) -> Result<Option<SystemPrompt>, ShapingError> {
    if settings.trim().is_empty() {
        return Ok(None);
    }
    let s: PromptSettings = settings_object(settings)?;
    let text = s.system_prompt.unwrap_or_default();
    if text.is_empty() {
        return Ok(None);
    }
    Ok(Some(SystemPrompt {
        text,
        mode: if s.system_prompt_override.unwrap_or(false) {
            SystemPromptMode::Prepend
        } else {
            SystemPromptMode::KeepClient
        },
    }))
}

/// Reads the keys `T` knows from the channel settings JSON object (non-blank text).
fn settings_object<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ShapingError> {
    let invalid = |m: String| ShapingError::SettingInvalid(format!("channel settings: {m}"));
    let v: Value = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
    if !v.is_object() {
        return Err(invalid("must be a JSON object".into()));
    }
    serde_json::from_value(v).map_err(|e| invalid(e.to_string()))
}
