//! `mock-provider`: runs the mock upstream on an address until interrupted.

use std::net::SocketAddr;

use clap::Parser;

/// Mock upstream for tests and benchmarks: OpenAI-compatible, OpenAI Responses
/// (`/v1/responses`), Anthropic Messages (`/v1/messages`), Gemini
/// (`/v1beta/models/{model}:generateContent` …), AWS Bedrock (`/model/{id}/invoke`,
/// `/invoke-with-response-stream`, `/converse`, `/converse-stream`; SigV4 with access key
/// `AKIDMOCKBEDROCK` / secret `mock-bedrock-secret`, or `Bearer bedrock-api-key-…`) and Vertex AI
/// (`/v1/projects/{p}/locations/{r}/publishers/{google|anthropic}/models/{m}:{method}`, with
/// Google's service-account token endpoint at `POST /token`, which knows the test account of
/// `fixtures/vertex-test-service-account.json`; `token_ttl=N` sets the token lifetime).
///
/// Scenarios are chosen per request by a `/s/{spec}` path prefix or an `x-mock-scenario`
/// header, e.g. `tag=a,status=500`, `ttfb_ms=2000`, `chunk_delay_ms=50,chunks=20`, `first_event_ms=500`,
/// `cut_after=3`, `malformed=1`, `usage=off`, `prompt_tokens=100,cached_tokens=20`,
/// `tool=get_weather`; for Anthropic, Gemini and Responses also `thinking=on`; for Anthropic
/// and Gemini `cache_read=30,cache_creation=10`.
/// `GET /__mock/stats` returns call counts and recent requests.
#[derive(Parser, Debug)]
#[command(name = "mock-provider", version)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:4000")]
    listen: SocketAddr,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let handle = mock_provider::start(args.listen).await?;
    println!("mock-provider listening on {}", handle.addr);
    tokio::signal::ctrl_c().await?;
    handle.stop();
    Ok(())
}
