//! Cohere's v2 API as a provider protocol: chat (`POST /v2/chat`, JSON and SSE) converted
//! through the IR, and rerank (`POST /v2/rerank`) from and to the Jina/OpenAI-style shape.
