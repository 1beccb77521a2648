//! Cached prompt tokens in each OpenAI-compatible provider's usage shape, read by the
//! passthrough (answers and the stream relay) and by the Chat Completions decoder alike.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::{Usage, chunk_usage_of, usage_of};
use crate::ir::StreamEvent;
use crate::openai_chat;
use crate::stream::StreamRelay;

/// (provider, usage object as the provider sends it, prompt, completion, cached).
fn shapes() -> Vec<(&'static str, Value, i64, i64, i64)> {
    vec![
        (
            "openai",
            json!({"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0}}),
            2006,
            300,
            1920,
        ),
        (
            "deepseek (older: hit/miss only)",
            json!({"prompt_tokens": 1200, "completion_tokens": 50, "total_tokens": 1250,
                "prompt_cache_hit_tokens": 1024, "prompt_cache_miss_tokens": 176}),
            1200,
            50,
            1024,
        ),
        (
            "deepseek (newer: both)",
            json!({"prompt_tokens": 1200, "completion_tokens": 50, "total_tokens": 1250,
                "prompt_tokens_details": {"cached_tokens": 1024},
                "prompt_cache_hit_tokens": 1024, "prompt_cache_miss_tokens": 176,
                "completion_tokens_details": {"reasoning_tokens": 20}}),
            1200,
            50,
            1024,
        ),
        (
            "deepseek (details zero, hit counted)",
            json!({"prompt_tokens": 300, "completion_tokens": 5,
                "prompt_tokens_details": {"cached_tokens": 0},
                "prompt_cache_hit_tokens": 256, "prompt_cache_miss_tokens": 44}),
            300,
            5,
            256,
        ),
        (
            "moonshot",
            json!({"prompt_tokens": 1125, "completion_tokens": 8, "total_tokens": 1133,
                "cached_tokens": 1024}),
            1125,
            8,
            1024,
        ),
        (
            "xai",
            json!({"prompt_tokens": 37, "completion_tokens": 530, "total_tokens": 799,
                "prompt_tokens_details": {"text_tokens": 37, "audio_tokens": 0, "image_tokens": 0, "cached_tokens": 8},
                "completion_tokens_details": {"reasoning_tokens": 232, "audio_tokens": 0},
                "num_sources_used": 0}),
            37,
            530,
            8,
        ),
        (
            "openrouter",
            json!({"prompt_tokens": 194, "completion_tokens": 2, "total_tokens": 196, "cost": 0.95,
                "prompt_tokens_details": {"cached_tokens": 128, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0}}),
            194,
            2,
            128,
        ),
        (
            "no cache fields",
            json!({"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}),
            10,
            3,
            0,
        ),
        (
            "cached over the prompt (clamped)",
            json!({"prompt_tokens": 10, "completion_tokens": 3, "cached_tokens": 50}),
            10,
            3,
            10,
        ),
    ]
}

#[test]
fn every_provider_shape_counts_cached_tokens() {
    for (name, usage, prompt, completion, cached) in shapes() {
        let want = Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            cached_tokens: cached,
            cache_creation_tokens: 0,
        };
        let answer = json!({"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}], "usage": usage});
        assert_eq!(usage_of(&answer), Some(want), "{name}: usage_of");

        // Converted answers (Chat Completions decoder) read the same.
        let r = openai_chat::decode_response(&answer).unwrap();
        let u = r.usage.unwrap();
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.cache_read_tokens),
            (prompt, completion, cached),
            "{name}: decode_response"
        );

        // Streams: the passthrough relay and the decoder.
        let chunk = json!({"id": "x", "choices": [], "usage": usage});
        let mut relay = StreamRelay::new("m", false, 1);
        relay
            .feed(format!("data: {chunk}\n\ndata: [DONE]\n\n").as_bytes())
            .unwrap();
        assert_eq!(relay.usage(), (want, false), "{name}: relay");
        let mut dec = openai_chat::StreamDecoder::new();
        let mut out = Vec::new();
        dec.decode(&chunk.to_string(), &mut out).unwrap();
        let Some(StreamEvent::Usage(u)) = out.last() else {
            panic!("{name}: no usage event in {out:?}");
        };
        assert_eq!(u.cache_read_tokens, cached, "{name}: stream decoder");
    }
}

#[test]
fn moonshot_stream_usage_in_the_choice_is_captured() {
    let last = json!({"id": "x", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {},
        "finish_reason": "stop",
        "usage": {"prompt_tokens": 1125, "completion_tokens": 8, "total_tokens": 1133, "cached_tokens": 1024}}]});
    let want = Usage {
        prompt_tokens: 1125,
        completion_tokens: 8,
        cached_tokens: 1024,
        cache_creation_tokens: 0,
    };
    assert_eq!(chunk_usage_of(&last), Some(want));
    let mut relay = StreamRelay::new("m", false, 1);
    let out = relay
        .feed(format!("data: {last}\n\ndata: [DONE]\n\n").as_bytes())
        .unwrap();
    assert_eq!(relay.usage(), (want, false));
    // The chunk still reaches the client (it carries the finish reason).
    assert!(
        std::str::from_utf8(&out)
            .unwrap()
            .contains("\"finish_reason\":\"stop\"")
    );
}
