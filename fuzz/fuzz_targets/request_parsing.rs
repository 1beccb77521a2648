//! Every inbound request decoder, fed arbitrary bytes as a body; whatever decodes goes on
//! through every provider encoder. The body is also read as an upstream answer in each
//! protocol (those bytes come from outside too). Nothing may panic.

#![no_main]

use std::collections::HashMap;

use adapters::convert::{self, Dialect, EncodeOptions};
use adapters::ir;
use adapters::openai::{self, Endpoint};
use adapters::provider::Protocol;
use adapters::{claude, gemini, openai_chat, responses, tokens};
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const ENDPOINTS: [Endpoint; 3] = [
    Endpoint::ChatCompletions,
    Endpoint::Completions,
    Endpoint::Embeddings,
];
const PROTOCOLS: [Protocol; 3] = [Protocol::OpenAi, Protocol::Anthropic, Protocol::Gemini];
const DIALECTS: [Dialect; 4] = [
    Dialect::OpenAi,
    Dialect::Responses,
    Dialect::Claude,
    Dialect::Gemini,
];

fuzz_target!(|data: &[u8]| {
    for endpoint in ENDPOINTS {
        if let Ok(parsed) = openai::parse_request(endpoint, Bytes::copy_from_slice(data)) {
            let _ = parsed.upstream_body("upstream-model", true);
            let _ = parsed.upstream_body(&parsed.model, false);
            if let Ok(req) = openai_chat::decode_request(parsed.raw()) {
                encode_everywhere(&req);
            }
        }
    }
    let _ = openai_chat::client_wants_usage(data);
    // The borrowed tree the OpenAI decoder reads agrees with serde_json on every input.
    let value = serde_json::from_slice::<serde_json::Value>(data);
    let tree = adapters::json_tree::Json::parse(data);
    assert_eq!(value.is_ok(), tree.is_ok(), "both parsers accept the same inputs");
    if let (Ok(value), Ok(tree)) = (value, tree) {
        assert_eq!(tree.to_value(), value);
    }
    let decoded = [
        openai_chat::decode_request(data),
        claude::decode_request(data),
        claude::decode_count_tokens(data),
        gemini::decode_request("m", false, data),
        gemini::decode_request("m", true, data),
        responses::decode_request(data),
    ];
    for req in decoded.iter().flatten() {
        encode_everywhere(req);
    }
    for batch in [false, true] {
        if let Ok(v) = gemini::embed_request_to_openai("m", data, batch) {
            let _ = gemini::openai_embeddings_request_to_gemini("m", &v);
        }
    }
    if let Ok(v) = serde_json::from_slice::<Value>(data) {
        decode_answers(&v);
    }
});

/// The request for each channel protocol, with and without Gemini safety settings.
fn encode_everywhere(req: &ir::Request) {
    let _ = tokens::estimate(&req.model, &req.prompt_text());
    let mut safety = HashMap::new();
    safety.insert("default".to_owned(), "BLOCK_NONE".to_owned());
    safety.insert(
        "HARM_CATEGORY_HARASSMENT".to_owned(),
        "BLOCK_ONLY_HIGH".to_owned(),
    );
    for protocol in PROTOCOLS {
        let _ = convert::encode_request(protocol, req, "upstream-model", EncodeOptions::default());
        let with_safety = EncodeOptions {
            gemini_safety: Some(&safety),
            gemini_image_output: false,
        };
        let _ = convert::encode_request(protocol, req, &req.model, with_safety);
    }
}

/// The JSON read as a channel's complete answer in each protocol, and re-encoded for each
/// client dialect; and as a same-dialect answer read for usage.
fn decode_answers(v: &Value) {
    let _ = openai::usage_of(v);
    let mut text = String::new();
    openai::push_output_text(v, &mut text);
    for protocol in PROTOCOLS {
        if let Ok(answer) = convert::decode_response(protocol, v) {
            let _ = answer.output_text();
            for dialect in DIALECTS {
                let _ = dialect.encode_response(&answer, 1_700_000_000);
            }
        }
    }
    for dialect in DIALECTS {
        let _ = convert::passthrough_usage(dialect, v);
    }
    for batch in [false, true] {
        let _ = gemini::openai_embeddings_to_gemini(v, batch);
    }
    let _ = gemini::gemini_embeddings_to_openai(v, "m", 7);
}
