//! The model lists of the cloud stand-ins, which the control plane reads when an admin
//! fetches a channel's models: Bedrock's `ListFoundationModels` (`GET /foundation-models`,
//! on the control-plane endpoint `bedrock.{region}.amazonaws.com`, `byOutputModality`
//! filter honoured) and Vertex AI's Model Garden list of Google's models (`GET
//! /v1beta1/publishers/google/models`, paged with `pageSize` / `pageToken` as Google does,
//! at most [`VERTEX_PAGE`] a page here so paging is exercised). Authentication is checked by
//! the callers (`bedrock.rs`, `vertex.rs`) as for their other calls.

use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::{Call, MockBody, json_response};

/// Bedrock's `ListFoundationModels` path.
pub(crate) const FOUNDATION_MODELS_PATH: &str = "/foundation-models";
/// Vertex AI's list of Google's publisher models (v1beta1 only: v1 has no list).
pub(crate) const PUBLISHER_MODELS_PATH: &str = "/v1beta1/publishers/google/models";
/// Most publisher models on one page of the mock.
pub const VERTEX_PAGE: usize = 2;

/// Bedrock foundation models: id, provider, output modality.
const FOUNDATION_MODELS: [(&str, &str, &str); 4] = [
    (
        "anthropic.claude-3-haiku-20240307-v1:0",
        "Anthropic",
        "TEXT",
    ),
    ("amazon.nova-pro-v1:0", "Amazon", "TEXT"),
    ("amazon.titan-embed-text-v2:0", "Amazon", "EMBEDDING"),
    ("meta.llama3-8b-instruct-v1:0", "Meta", "TEXT"),
];

/// Google's publisher models as Model Garden lists them (Gemini, embeddings and others).
const PUBLISHER_MODELS: [&str; 5] = [
    "gemini-2.5-flash",
    "gemini-2.5-pro",
    "imagen-4.0-generate-001",
    "text-embedding-005",
    "gemini-embedding-001",
];

/// `ListFoundationModels`: `{"modelSummaries": [...]}`, filtered by `byOutputModality`.
pub(crate) fn bedrock(call: &Call) -> Response<MockBody> {
    if call.method != http::Method::GET {
        return crate::bedrock::error(405, "UnknownOperationException", "Method not allowed");
    }
    let modality = call.query_param("byOutputModality");
    let summaries: Vec<Value> = FOUNDATION_MODELS
        .iter()
        .filter(|(_, _, output)| modality.is_none_or(|m| m == *output))
        .map(|(id, provider, output)| {
            json!({
                "modelArn": format!("arn:aws:bedrock:us-east-1::foundation-model/{id}"),
                "modelId": id,
                "modelName": id,
                "providerName": provider,
                "inputModalities": ["TEXT"],
                "outputModalities": [output],
                "responseStreamingSupported": *output == "TEXT",
                "inferenceTypesSupported": ["ON_DEMAND"],
                "modelLifecycle": {"status": "ACTIVE"},
            })
        })
        .collect();
    json_response(StatusCode::OK, &json!({ "modelSummaries": summaries }))
}

/// `publishers.models.list`: `{"publisherModels": [...], "nextPageToken": …}`; the page
/// token is the index of the page's first model.
pub(crate) fn vertex(call: &Call) -> Response<MockBody> {
    if call.method != http::Method::GET {
        return crate::gemini::error(405, &format!("Method {} not allowed", call.method));
    }
    let size = call
        .query_param("pageSize")
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|n| *n > 0)
        .map_or(VERTEX_PAGE, |n| n.min(VERTEX_PAGE));
    let start = match call.query_param("pageToken") {
        None | Some("") => 0,
        Some(token) => match token.parse::<usize>() {
            Ok(n) if n < PUBLISHER_MODELS.len() => n,
            _ => return crate::gemini::error(400, "Invalid page token."),
        },
    };
    let end = (start + size).min(PUBLISHER_MODELS.len());
    let models: Vec<Value> = PUBLISHER_MODELS[start..end]
        .iter()
        .map(|m| {
            json!({
                "name": format!("publishers/google/models/{m}"),
                "versionId": "001",
                "openSourceCategory": "PROPRIETARY",
                "launchStage": "GA",
            })
        })
        .collect();
    let mut body = json!({ "publisherModels": models });
    if end < PUBLISHER_MODELS.len() {
        body["nextPageToken"] = json!(end.to_string());
    }
    json_response(StatusCode::OK, &body)
}
