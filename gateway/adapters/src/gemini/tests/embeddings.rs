//! Embeddings: Gemini bodies to OpenAI and OpenAI answers back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::super::{embed_request_to_openai, openai_embeddings_to_gemini};
use crate::ParseError;

#[test]
fn single_and_batch_requests() {
    let body = json!({"model": "models/text-embedding-004",
        "content": {"parts": [{"text": "hello"}, {"text": "world"}]},
        "taskType": "RETRIEVAL_QUERY", "outputDimensionality": 256});
    assert_eq!(
        embed_request_to_openai("text-embedding-3-small", body.to_string().as_bytes(), false)
            .unwrap(),
        json!({"model": "text-embedding-3-small", "input": "hello\nworld", "dimensions": 256})
    );
    let body = json!({"requests": [
        {"model": "models/e", "content": {"parts": [{"text": "a"}]}},
        {"model": "models/e", "content": {"parts": [{"text": "b"}]}}
    ]});
    assert_eq!(
        embed_request_to_openai("e", body.to_string().as_bytes(), true).unwrap(),
        json!({"model": "e", "input": ["a", "b"]})
    );
}

#[test]
fn bad_embedding_requests_are_errors() {
    for (body, batch) in [
        (r#"{}"#, false),
        (r#"{"content": {"parts": []}}"#, false),
        (r#"{"content": {"parts": [{"inlineData": {}}]}}"#, false),
        (r#"{"requests": []}"#, true),
        (r#"{"requests": [{"content": 1}]}"#, true),
        (r#"[]"#, false),
    ] {
        assert!(
            matches!(
                embed_request_to_openai("m", body.as_bytes(), batch),
                Err(ParseError::Invalid(_))
            ),
            "{body}"
        );
    }
    assert!(matches!(
        embed_request_to_openai("m", b"{", false),
        Err(ParseError::MalformedJson(_))
    ));
}

#[test]
fn answers_convert_in_index_order() {
    let v = json!({"object": "list", "data": [
        {"object": "embedding", "index": 1, "embedding": [0.3, 0.4]},
        {"object": "embedding", "index": 0, "embedding": [0.1, 0.2]}
    ], "usage": {"prompt_tokens": 2, "total_tokens": 2}});
    assert_eq!(
        openai_embeddings_to_gemini(&v, true).unwrap(),
        json!({"embeddings": [{"values": [0.1, 0.2]}, {"values": [0.3, 0.4]}]})
    );
    assert_eq!(
        openai_embeddings_to_gemini(&v, false).unwrap(),
        json!({"embedding": {"values": [0.1, 0.2]}})
    );
    for bad in [
        json!({"data": []}),
        json!({"data": [{"embedding": "AAAA"}]}),
        json!({"error": {"message": "quota"}}),
        json!([1]),
    ] {
        assert!(matches!(
            openai_embeddings_to_gemini(&bad, false),
            Err(ParseError::Invalid(_))
        ));
    }
}
