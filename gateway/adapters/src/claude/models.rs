//! The model list in Anthropic's shape (`GET /v1/models` with `anthropic-version`).

use serde_json::{Value, json};

/// `{data:[{type:"model", id, display_name, created_at}], has_more:false, first_id,
/// last_id}`; the gateway knows no display names or dates, so the id and a fixed date
/// stand in. `first_id` and `last_id` are `null` for an empty list.
pub fn anthropic_model_list(models: &[String]) -> Value {
    let data: Vec<Value> = models
        .iter()
        .map(|id| {
            json!({
                "type": "model",
                "id": id,
                "display_name": id,
                "created_at": "2024-01-01T00:00:00Z",
            })
        })
        .collect();
    json!({
        "data": data,
        "has_more": false,
        "first_id": models.first(),
        "last_id": models.last(),
    })
}
