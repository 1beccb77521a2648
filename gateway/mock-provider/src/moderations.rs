//! `/v1/moderations` as OpenAI serves it: JSON with `input` (a string or a list); answers one
//! result per input, flagged when the text contains "kill".

use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::{Call, MockBody, json_response, media_error};

const CATEGORIES: [&str; 4] = ["hate", "harassment", "self-harm", "violence"];

pub(crate) fn handle(call: &Call) -> Response<MockBody> {
    let Some(v) = &call.json else {
        return media_error(StatusCode::BAD_REQUEST, "the body must be JSON", None);
    };
    let inputs: Vec<String> = match v.get("input") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|i| {
                i.as_str()
                    .or_else(|| i.get("text").and_then(Value::as_str))
                    .unwrap_or("")
                    .to_owned()
            })
            .collect(),
        _ => {
            return media_error(
                StatusCode::BAD_REQUEST,
                "Missing required parameter: 'input'.",
                Some("input"),
            );
        }
    };
    let results: Vec<Value> = inputs
        .iter()
        .map(|text| {
            let violent = text.to_lowercase().contains("kill");
            let categories: serde_json::Map<String, Value> = CATEGORIES
                .iter()
                .map(|c| ((*c).to_owned(), Value::Bool(violent && *c == "violence")))
                .collect();
            let scores: serde_json::Map<String, Value> = CATEGORIES
                .iter()
                .map(|c| {
                    (
                        (*c).to_owned(),
                        json!(if violent && *c == "violence" {
                            0.98
                        } else {
                            0.001
                        }),
                    )
                })
                .collect();
            json!({"flagged": violent, "categories": categories, "category_scores": scores})
        })
        .collect();
    let model = v
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("omni-moderation-latest");
    json_response(
        StatusCode::OK,
        &json!({"id": "modr-mock", "model": model, "results": results}),
    )
}
