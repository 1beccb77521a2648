//! OpenAI's image endpoints as the mock serves them: `/v1/images/generations` (JSON with a
//! `prompt`) and `/v1/images/edits` (multipart with `prompt` and an `image` file, or JSON with
//! `prompt`). Answers `data` with one `url` per image (`b64_json` when asked), and for
//! `gpt-image-*` models the token `usage` OpenAI reports: input tokens `prompt_tokens=`
//! (default 12) and [`IMAGE_OUTPUT_TOKENS`] output tokens per image.

use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::{Call, MockBody, json_response, media_error};

/// Output tokens a gpt-image model reports per image.
pub const IMAGE_OUTPUT_TOKENS: u64 = 4160;

pub(crate) fn handle(call: &Call, edit: bool) -> Response<MockBody> {
    let (model, prompt, n, format) = match (&call.form, &call.json) {
        (Some(Ok(form)), _) if edit => {
            if !form
                .parts
                .iter()
                .any(|p| (p.name == "image" || p.name == "image[]") && !p.data.is_empty())
            {
                return media_error(StatusCode::BAD_REQUEST, "image is required", Some("image"));
            }
            (
                form.text("model").map(str::to_owned),
                form.text("prompt").map(str::to_owned),
                form.text("n").and_then(|n| n.parse::<u64>().ok()),
                form.text("response_format").map(str::to_owned),
            )
        }
        (Some(Err(e)), _) => return media_error(StatusCode::BAD_REQUEST, e, None),
        (None, Some(v)) => (
            v.get("model").and_then(Value::as_str).map(str::to_owned),
            v.get("prompt").and_then(Value::as_str).map(str::to_owned),
            v.get("n").and_then(Value::as_u64),
            v.get("response_format")
                .and_then(Value::as_str)
                .map(str::to_owned),
        ),
        _ => return media_error(StatusCode::BAD_REQUEST, "could not parse the body", None),
    };
    if prompt.as_deref().is_none_or(|p| p.trim().is_empty()) {
        return media_error(
            StatusCode::BAD_REQUEST,
            "Missing required parameter: 'prompt'.",
            Some("prompt"),
        );
    }
    let model = model.unwrap_or_else(|| "dall-e-2".to_owned());
    let n = n.unwrap_or(1).clamp(1, 10);
    let data: Vec<Value> = (0..n)
        .map(|i| {
            if format.as_deref() == Some("b64_json") || model.starts_with("gpt-image") {
                json!({"b64_json": "aW1hZ2U="})
            } else {
                json!({"url": format!("https://mock.invalid/img/{i}.png"), "revised_prompt": prompt})
            }
        })
        .collect();
    let mut body = json!({"created": 1_700_000_000, "data": data});
    if model.starts_with("gpt-image") {
        let input = call.scenario.prompt_tokens;
        let output = IMAGE_OUTPUT_TOKENS * n;
        body["usage"] = json!({
            "input_tokens": input,
            "output_tokens": output,
            "total_tokens": input + output,
            "input_tokens_details": {"text_tokens": input, "image_tokens": 0},
        });
    }
    json_response(StatusCode::OK, &body)
}
