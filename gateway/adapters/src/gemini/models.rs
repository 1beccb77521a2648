//! Client side: the model list of `GET /v1beta/models`.

use serde_json::{Value, json};

/// `{"models":[{"name":"models/{id}","displayName":id,"supportedGenerationMethods":[…]}]}`:
/// `embedContent`/`batchEmbedContents` for models whose id names embeddings,
/// `generateContent`/`streamGenerateContent` for the rest.
pub fn model_list(models: &[String]) -> Value {
    let list: Vec<Value> = models
        .iter()
        .map(|m| {
            let id = m.strip_prefix("models/").unwrap_or(m);
            let methods = if id.contains("embedding") {
                ["embedContent", "batchEmbedContents"]
            } else {
                ["generateContent", "streamGenerateContent"]
            };
            json!({
                "name": format!("models/{id}"),
                "displayName": id,
                "supportedGenerationMethods": methods,
            })
        })
        .collect();
    json!({ "models": list })
}
