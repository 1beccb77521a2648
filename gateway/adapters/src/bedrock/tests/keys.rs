//! Channel keys, regions, URLs and the headers that authenticate a request.

use crate::bedrock::{
    Action, Auth, ChannelKey, KeyError, auth_headers, model_url, parse_key, resolve_model,
    runtime_base, valid_region,
};

#[test]
fn parses_the_three_key_forms() {
    let k = parse_key(" AKIDX | secret/with+chars | us-east-1 ").unwrap();
    assert_eq!(k.region, "us-east-1");
    let Auth::SigV4(c) = &k.auth else {
        panic!("{k:?}")
    };
    assert_eq!(c.access_key_id(), "AKIDX");
    assert!(!c.has_session_token());
    let k = parse_key("AKIDX|sk|tok|eu-west-3").unwrap();
    let Auth::SigV4(c) = &k.auth else {
        panic!("{k:?}")
    };
    assert!(c.has_session_token());
    assert_eq!(k.region, "eu-west-3");
    assert_eq!(
        parse_key("bedrock-api-key-abc|ap-southeast-2").unwrap(),
        ChannelKey {
            auth: Auth::ApiKey("bedrock-api-key-abc".into()),
            region: "ap-southeast-2".into()
        }
    );
}

#[test]
fn refuses_bad_keys_without_showing_them() {
    assert_eq!(parse_key("justakey"), Err(KeyError::Shape(1)));
    assert_eq!(parse_key("a|b|c|d|e"), Err(KeyError::Shape(5)));
    assert_eq!(parse_key("|us-east-1"), Err(KeyError::Empty("API key")));
    assert_eq!(
        parse_key("ak||us-east-1"),
        Err(KeyError::Empty("secret access key"))
    );
    assert_eq!(parse_key("ak|sk|"), Err(KeyError::Empty("region")));
    let e = parse_key("ak|topsecret|us-east-1.evil.com/").unwrap_err();
    assert!(matches!(e, KeyError::Region(_)));
    assert!(!e.to_string().contains("topsecret"));
    assert!(valid_region("us-gov-west-1") && valid_region("eu-central-2"));
    for bad in [
        "",
        "-us",
        "us-",
        "us east",
        "us_east_1",
        "x.y",
        &"a".repeat(33),
    ] {
        assert!(!valid_region(bad), "{bad:?}");
    }
}

#[test]
fn debug_redacts_secrets() {
    for key in [
        "AKIAIOSFODNN7EXAMPLE|verysecret|sess-token-1|us-east-1",
        "ABSKsecretapikey|us-east-1",
    ] {
        let d = format!("{:?}", parse_key(key).unwrap());
        for secret in [
            "verysecret",
            "sess-token-1",
            "ABSKsecretapikey",
            "IOSFODNN7",
        ] {
            assert!(!d.contains(secret), "{d}");
        }
        assert!(d.contains("us-east-1"), "{d}");
    }
}

#[test]
fn builds_urls_with_the_model_id_encoded() {
    let base = runtime_base("us-west-2", "");
    assert_eq!(base, "https://bedrock-runtime.us-west-2.amazonaws.com");
    assert_eq!(
        runtime_base("us-west-2", " http://127.0.0.1:9/s/tag=a/ "),
        "http://127.0.0.1:9/s/tag=a"
    );
    let id = resolve_model("claude-3-7-sonnet-20250219", "us-west-2");
    assert_eq!(
        model_url(&base, &id, Action::Invoke),
        "https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke"
    );
    let cases = [
        (Action::InvokeStream, "invoke-with-response-stream"),
        (Action::Converse, "converse"),
        (Action::ConverseStream, "converse-stream"),
    ];
    for (action, suffix) in cases {
        assert_eq!(
            model_url("http://h/", "m:0", action),
            format!("http://h/model/m%3A0/{suffix}")
        );
    }
    assert!(Action::ConverseStream.is_stream() && !Action::Converse.is_stream());
    assert_eq!(
        model_url(
            "http://h",
            "arn:aws:bedrock:us-east-1:1:inference-profile/us.x",
            Action::Converse
        ),
        "http://h/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.x/converse"
    );
}

#[test]
fn authenticates_with_either_kind_of_key() {
    let api = parse_key("bedrock-api-key-xyz|us-east-1").unwrap();
    assert_eq!(
        auth_headers(&api, "POST", "https://h/model/m/converse", &[], b"{}", 0).unwrap(),
        vec![("authorization", "Bearer bedrock-api-key-xyz".to_owned())]
    );
    let iam = parse_key("AKIDEXAMPLE|wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY|us-east-1").unwrap();
    let url = "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke";
    let body = br#"{"anthropic_version":"bedrock-2023-05-31","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}"#;
    let h = auth_headers(
        &iam,
        "POST",
        url,
        &[("content-type", "application/json")],
        body,
        1_730_810_096,
    )
    .unwrap();
    let names: Vec<&str> = h.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        names,
        ["authorization", "x-amz-date", "x-amz-content-sha256"]
    );
    // The botocore signature of `sigv4::tests::signs_a_bedrock_invoke_as_botocore_does`.
    assert!(
        h[0].1.ends_with(
            "Signature=b892f7887960e7ee7dfed03cd20faf79c63fed5374760000e9c93e7640d9d10d"
        )
    );
}
