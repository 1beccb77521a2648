//! Rerank: a Jina/OpenAI-style `/v1/rerank` body ↔ Cohere `POST /v2/rerank`.

use serde_json::{Map, Value, json};

use super::response::error_message;
use crate::ParseError;

fn invalid(msg: &str) -> ParseError {
    ParseError::Invalid(msg.to_owned())
}

/// What a rerank answer counts for billing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RerankUsage {
    /// Cohere's billed search units (one per query of up to 100 documents).
    pub search_units: i64,
    /// Tokens read, when Cohere reports them (`meta.tokens.input_tokens`).
    pub input_tokens: i64,
}

/// The `/v2/rerank` body for a Jina-style body `{model, query, documents, top_n,
/// return_documents}`: `documents` as strings (a `{"text": …}` document as its text, any
/// other object as its JSON text: v2 takes strings only), `top_n` and
/// `max_tokens_per_doc` kept. `return_documents` has no v2 field: documents are added back
/// by [`cohere_rerank_to_jina`].
pub fn jina_rerank_to_cohere(body: &Value, upstream_model: &str) -> Result<Value, ParseError> {
    let query = body
        .get("query")
        .and_then(Value::as_str)
        .filter(|q| !q.is_empty())
        .ok_or_else(|| invalid("`query` must be a non-empty string"))?;
    let docs = documents(body)?;
    let mut out = Map::new();
    out.insert("model".into(), json!(upstream_model));
    out.insert("query".into(), json!(query));
    out.insert("documents".into(), json!(docs));
    for key in ["top_n", "max_tokens_per_doc"] {
        if let Some(n) = body.get(key).and_then(Value::as_i64).filter(|n| *n > 0) {
            out.insert(key.into(), json!(n));
        }
    }
    Ok(Value::Object(out))
}

/// The request's documents as the strings sent to Cohere.
fn documents(body: &Value) -> Result<Vec<String>, ParseError> {
    let list = body
        .get("documents")
        .and_then(Value::as_array)
        .filter(|d| !d.is_empty())
        .ok_or_else(|| invalid("`documents` must be a non-empty array"))?;
    list.iter()
        .map(|d| match d {
            Value::String(s) => Ok(s.clone()),
            Value::Object(o) => Ok(match o.get("text") {
                Some(Value::String(t)) => t.clone(),
                _ => d.to_string(),
            }),
            _ => Err(invalid("`documents` must hold strings or objects")),
        })
        .collect()
}

/// The Jina-style answer for a Cohere rerank answer and the client's request: `{model,
/// results: [{index, relevance_score, document?: {text}}], usage: {total_tokens}}`, results
/// in Cohere's order (most relevant first). `document` is added when the client's
/// `return_documents` is true or absent (Jina's default). `total_tokens` is Cohere's
/// `meta.tokens.input_tokens` when given, else its search units. An error body or a
/// missing `results` list is `Err(Invalid)`.
pub fn cohere_rerank_to_jina(v: &Value, request: &Value, model: &str) -> Result<Value, ParseError> {
    if let Some(msg) = error_message(v) {
        return Err(ParseError::Invalid(msg));
    }
    let results = v
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("Cohere rerank answer has no `results` array"))?;
    let with_docs = request
        .get("return_documents")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let docs = if with_docs {
        documents(request).unwrap_or_default()
    } else {
        Vec::new()
    };
    let mut out = Vec::with_capacity(results.len());
    for r in results {
        let index = r
            .get("index")
            .and_then(Value::as_u64)
            .ok_or_else(|| invalid("Cohere rerank result has no `index`"))?;
        let mut item = json!({
            "index": index,
            "relevance_score": r.get("relevance_score").cloned().unwrap_or(json!(0.0)),
        });
        if with_docs {
            let text = usize::try_from(index).ok().and_then(|i| docs.get(i));
            if let Some(t) = text {
                item["document"] = json!({ "text": t });
            }
        }
        out.push(item);
    }
    let u = rerank_usage(v);
    let total = if u.input_tokens > 0 {
        u.input_tokens
    } else {
        u.search_units
    };
    Ok(json!({
        "model": model,
        "results": out,
        "usage": {"total_tokens": total},
    }))
}

/// `meta.billed_units.search_units` and `meta.tokens.input_tokens` of a rerank answer.
pub fn rerank_usage(v: &Value) -> RerankUsage {
    let n = |p: &str| v.pointer(p).and_then(Value::as_f64).unwrap_or(0.0).max(0.0) as i64;
    RerankUsage {
        search_units: n("/meta/billed_units/search_units"),
        input_tokens: n("/meta/tokens/input_tokens"),
    }
}
