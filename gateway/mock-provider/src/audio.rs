//! OpenAI's audio endpoints as the mock serves them. `/v1/audio/speech`: JSON with `model`,
//! `input` (at most 4096 characters) and `voice`; answers [`SPEECH_BYTES`] bytes of
//! `audio/mpeg` (or the asked `response_format`'s type). `/v1/audio/transcriptions` and
//! `/translations`: multipart with a non-empty `file` part named with an audio extension and a
//! `model` field; answers
//! `{"text"}` (json), the text alone (`text`), `verbose_json` with `duration` (the
//! `duration=` scenario key, default 3), and for `gpt-4o-*transcribe` models the token
//! `usage` (input `prompt_tokens=`, output [`TRANSCRIPT_TOKENS`]).

use bytes::Bytes;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use crate::{Call, MockBody, bytes_response, json_response, media_error};

/// Bytes of audio a speech answer carries.
pub const SPEECH_BYTES: usize = 2048;
/// Output tokens a gpt-4o transcription reports.
pub const TRANSCRIPT_TOKENS: u64 = 45;
/// File name extensions OpenAI accepts for audio.
const AUDIO_EXTENSIONS: [&str; 10] = [
    "flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm",
];
/// The text of every transcription.
pub const TRANSCRIPT: &str = "mock transcript";

pub(crate) fn speech(call: &Call) -> Response<MockBody> {
    let Some(v) = &call.json else {
        return media_error(StatusCode::BAD_REQUEST, "the body must be JSON", None);
    };
    for field in ["model", "input", "voice"] {
        if v.get(field).is_none_or(Value::is_null) {
            return media_error(
                StatusCode::BAD_REQUEST,
                &format!("Missing required parameter: '{field}'."),
                Some(field),
            );
        }
    }
    let input = v.get("input").and_then(Value::as_str).unwrap_or("");
    if input.is_empty() || input.chars().count() > 4096 {
        return media_error(
            StatusCode::BAD_REQUEST,
            "input must hold 1 to 4096 characters",
            Some("input"),
        );
    }
    let ctype = match v.get("response_format").and_then(Value::as_str) {
        Some("wav") => "audio/wav",
        Some("opus") => "audio/opus",
        Some("aac") => "audio/aac",
        Some("flac") => "audio/flac",
        Some("pcm") => "audio/pcm",
        _ => "audio/mpeg",
    };
    let audio: Vec<u8> = (0..SPEECH_BYTES).map(|i| (i % 256) as u8).collect();
    bytes_response(StatusCode::OK, ctype, Bytes::from(audio))
}

pub(crate) fn transcription(call: &Call) -> Response<MockBody> {
    let form = match &call.form {
        Some(Ok(f)) => f,
        Some(Err(e)) => return media_error(StatusCode::BAD_REQUEST, e, None),
        None => {
            return media_error(
                StatusCode::BAD_REQUEST,
                "Invalid Content-Type header, expected multipart/form-data",
                None,
            );
        }
    };
    let Some(model) = form.text("model").filter(|m| !m.is_empty()) else {
        return media_error(
            StatusCode::BAD_REQUEST,
            "you must provide a model parameter",
            Some("model"),
        );
    };
    let Some(file) = form.part("file").filter(|f| !f.data.is_empty()) else {
        return media_error(
            StatusCode::BAD_REQUEST,
            "Missing required parameter: 'file'.",
            Some("file"),
        );
    };
    // OpenAI recognises the format by the file name's extension.
    let known = file
        .filename
        .as_deref()
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(_, ext)| AUDIO_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()));
    if !known {
        return media_error(
            StatusCode::BAD_REQUEST,
            &format!("Unrecognized file format. Supported formats: {AUDIO_EXTENSIONS:?}"),
            Some("file"),
        );
    }
    let duration = call.scenario.duration_secs;
    match form.text("response_format").unwrap_or("json") {
        "text" => bytes_response(
            StatusCode::OK,
            "text/plain; charset=utf-8",
            Bytes::from_static(TRANSCRIPT.as_bytes()),
        ),
        "verbose_json" => json_response(
            StatusCode::OK,
            &json!({"task": "transcribe", "language": "english", "duration": duration, "text": TRANSCRIPT, "segments": []}),
        ),
        _ => {
            let mut body = json!({"text": TRANSCRIPT});
            if model.starts_with("gpt-4o") {
                let input = call.scenario.prompt_tokens;
                body["usage"] = json!({
                    "type": "tokens",
                    "input_tokens": input,
                    "input_token_details": {"text_tokens": 0, "audio_tokens": input},
                    "output_tokens": TRANSCRIPT_TOKENS,
                    "total_tokens": input + TRANSCRIPT_TOKENS,
                });
            }
            json_response(StatusCode::OK, &body)
        }
    }
}
