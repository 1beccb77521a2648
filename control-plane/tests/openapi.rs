//! The OpenAPI document covers every route, and the copy the console generates its types from is
//! current.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

#[test]
fn document_lists_every_route_of_the_router() {
    let doc = serde_json::to_value(control_plane::api::openapi()).unwrap();
    let paths: BTreeSet<&str> = doc["paths"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for expected in [
        "/api/setup",
        "/api/status",
        "/api/openapi.json",
        "/api/user/login",
        "/api/user/logout",
        "/api/user/register",
        "/api/user/self",
        "/api/user/token",
        "/api/user/aff",
        "/api/user/models",
        "/api/user/self/groups",
        "/api/user/",
        "/api/user/search",
        "/api/user/{id}",
        "/api/user/manage",
        "/api/group/",
        "/api/option/",
    ] {
        assert!(
            paths.contains(expected),
            "{expected} missing from the OpenAPI document"
        );
    }
    let user_ops = doc["paths"]["/api/user/"].as_object().unwrap();
    assert!(
        user_ops.contains_key("get")
            && user_ops.contains_key("post")
            && user_ops.contains_key("put")
    );
    assert!(doc["components"]["schemas"]["UserView"]["properties"]["deleted_at"].is_object());
}

#[test]
fn checked_in_copy_is_current() {
    let generated = serde_json::to_value(control_plane::api::openapi()).unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.json");
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(
        stored, generated,
        "control-plane/openapi.json is stale: run `control-plane openapi > control-plane/openapi.json`"
    );
}
