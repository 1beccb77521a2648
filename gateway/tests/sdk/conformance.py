#!/usr/bin/env python3
"""Conformance of the gateway with the official SDKs (openai, anthropic, google-genai).

Every client dialect (OpenAI chat completions, OpenAI responses, Anthropic messages,
google-genai on its default `/v1` and on `/v1beta`) talks to every provider (models
`gpt-*`, `claude-*`, `gemini-*` on OpenAI, Anthropic and Gemini channels of the mock
provider), plain and streaming: a text turn, an image turn, a tool call (`*-tool` models,
where the mock calls `get_weather` with {"city": "Paris"}) and the tool result sent back.
Then token counting, embeddings, model lists, and bad input, which must come back as an
error of the client's own SDK in its own shape.

    GATEWAY_URL=http://127.0.0.1:4200 GATEWAY_KEY=sk-alice python conformance.py [SUBSTRING]

Prints one `PASS name: detail` or `FAIL name: detail` line per check, then
`N passed, M failed`; exits 1 when a check failed. SUBSTRING runs only matching checks.
"""

import os
import sys
from functools import partial

from google.genai import types as gt

from dialects import (
    Answer,
    ChatDialect,
    GeminiDialect,
    MessagesDialect,
    ResponsesDialect,
    expect,
)

# Model prefixes by channel: OpenAI, Anthropic, Gemini, the cloud channels (Azure OpenAI;
# Bedrock's Claude through InvokeModel and Nova through Converse; Vertex AI's Gemini and
# Claude) and the native protocols (Ollama, Cohere).
PROVIDERS = [
    "gpt", "claude", "gemini", "azure", "bedrock-claude", "bedrock-nova",
    "vertex-gemini", "vertex-claude", "ollama", "cohere",
]
# What the mock answers: five text pieces, 12 prompt tokens, one output token per piece.
WORDS = "word0 word1 word2 word3 word4 "
USAGE = (12, 5)
TOOL_CALL = ("get_weather", {"city": "Paris"})
# How each dialect says "finished" and "stopped to call a tool".
STOPS = {
    "chat": ("stop", "tool_calls"),
    "responses": ("completed", "completed"),
    "messages": ("end_turn", "tool_use"),
    "gemini": ("STOP", "STOP"),
}
# Providers whose mock refuses image bytes that are not an image (Gemini's does not look).
REFUSE_BAD_IMAGES = ["gpt", "claude", "azure"]
ALL_MODELS = [f"{p}-sdk" for p in PROVIDERS] + [f"{p}-tool" for p in PROVIDERS]
EMBED_MODELS = ["gpt-sdk-embed", "gemini-sdk-embed"]


class Checks:
    """Runs named checks, prints one line each, counts the results."""

    def __init__(self, only: str = ""):
        self.only, self.passed, self.failed = only, 0, 0

    def run(self, name: str, check, *args) -> None:
        """Runs `check(*args)`: it returns a detail or raises."""
        if self.only and self.only not in name:
            return
        try:
            detail = check(*args) or "ok"
            self.passed += 1
            print(f"PASS {name}: {detail}", flush=True)
        except Exception as e:  # every failure is reported, none stops the run
            self.failed += 1
            message = " ".join(str(e).split())[:400]
            print(f"FAIL {name}: {type(e).__name__}: {message}", flush=True)


def stop_name(stop) -> str:
    return str(getattr(stop, "value", stop))


def family(dialect) -> str:
    return "gemini" if dialect.name.startswith("gemini") else dialect.name


def check_answer(a: Answer, dialect, text: str, stream: bool) -> str:
    expect(a.text == text, f"text {a.text!r}, wanted {text!r}")
    expect(not a.calls, f"unexpected tool calls {a.calls}")
    expect(a.usage == USAGE, f"usage {a.usage}, wanted {USAGE}")
    want = STOPS[family(dialect)][0]
    expect(stop_name(a.stop) == want, f"stop {a.stop!r}, wanted {want!r}")
    return f"{a.text!r} usage={a.usage}" + (f" events={a.events}" if stream else "")


def text_turn(dialect, model: str, stream: bool, image: bool) -> str:
    want = f"images: 1 {WORDS}" if image else WORDS
    return check_answer(dialect.text(model, stream, image), dialect, want, stream)


def tool_call(dialect, model: str, stream: bool, calls: list) -> str:
    """The call is kept in `calls` for the tool-result turn."""
    a = dialect.tool(model, stream)
    calls.append(a)
    expect(a.calls == [TOOL_CALL], f"tool calls {a.calls}, wanted [{TOOL_CALL}]")
    expect(a.usage == USAGE, f"usage {a.usage}, wanted {USAGE}")
    want = STOPS[family(dialect)][1]
    expect(stop_name(a.stop) == want, f"stop {a.stop!r}, wanted {want!r}")
    return f"{a.calls} usage={a.usage}" + (f" events={a.events}" if stream else "")


def tool_result(dialect, model: str, stream: bool, calls: list) -> str:
    expect(calls, "no tool call to answer (see the tool-call check)")
    return check_answer(dialect.follow_up(model, stream, calls[0]), dialect, WORDS, stream)


def turns(checks: Checks, dialect, provider: str) -> None:
    """Text, image, tool call and tool result, plain and streaming."""
    model, tool_model = f"{provider}-sdk", f"{provider}-tool"
    for stream in (False, True):
        name = f"{dialect.name} -> {provider} {{}} {'stream' if stream else 'plain'}"
        calls = []
        checks.run(name.format("text"), text_turn, dialect, model, stream, False)
        checks.run(name.format("image"), text_turn, dialect, model, stream, True)
        checks.run(name.format("tool-call"), tool_call, dialect, tool_model, stream, calls)
        checks.run(name.format("tool-result"), tool_result, dialect, model, stream, calls)


def refused(dialect, send, *args, statuses=(400,)) -> str:
    """`send(*args)` must raise the dialect's own error for one of `statuses`, in its own shape."""
    try:
        send(*args)
    except Exception as e:
        status = getattr(e, "status_code", getattr(e, "code", None))
        expect(status in statuses, f"{type(e).__name__} {status}: {e}")
        expect(isinstance(e, dialect.errors[status]), f"{type(e).__name__}, wanted {dialect.errors[status].__name__}")
        expect(dialect.status_of(e) == status, f"status {dialect.status_of(e)}")
        return f"{status} {type(e).__name__}: {dialect.error_shape(e)[:120]}"
    raise AssertionError(f"no error for {statuses}")


def bad_input(checks: Checks, dialect, provider: str) -> None:
    """Refused by the gateway or by the provider: either way in the client's dialect."""
    model = f"{provider}-sdk"
    checks.run(f"{dialect.name} -> {provider} bad-request", refused, dialect, dialect.bad_request, model)
    if provider in REFUSE_BAD_IMAGES:
        checks.run(f"{dialect.name} -> {provider} upstream-error", refused, dialect, dialect.bad_image, model)


def edge_errors(checks: Checks, dialect, wrong_key) -> None:
    """Errors the gateway answers itself, before any provider: a wrong key, an unknown model."""
    only_401, only_404_or_503 = partial(refused, statuses=(401,)), partial(refused, statuses=(404, 503))
    checks.run(f"{dialect.name} bad-key", only_401, wrong_key, wrong_key.text, "gpt-sdk", False)
    checks.run(f"{dialect.name} unknown-model", only_404_or_503, dialect, dialect.text, "no-such-model", False)


def count_tokens(messages: MessagesDialect, model: str) -> str:
    n = messages.client.messages.count_tokens(model=model, messages=[{"role": "user", "content": "hi"}])
    expect(isinstance(n.input_tokens, int) and n.input_tokens > 0, f"input_tokens {n.input_tokens!r}")
    return f"input_tokens={n.input_tokens}"


def openai_embed(chat: ChatDialect, model: str) -> str:
    r = chat.client.embeddings.create(model=model, input=["hello", "world"])
    expect(len(r.data) == 2 and [d.index for d in r.data] == [0, 1], f"data {r.data}")
    expect(all(d.embedding and all(isinstance(x, float) for x in d.embedding) for d in r.data), "vectors")
    expect(r.usage is not None and r.usage.prompt_tokens > 0, f"usage {r.usage}")
    return f"2 vectors of {len(r.data[0].embedding)}, usage={r.usage.prompt_tokens}"


def gemini_embed(g: GeminiDialect, model: str) -> str:
    one = g.client.models.embed_content(model=model, contents="hello")
    # Two contents (a list of strings would be one content of two parts for some models).
    texts = [gt.Content(parts=[gt.Part(text=t)]) for t in ("hello", "world")]
    two = g.client.models.embed_content(model=model, contents=texts)
    expect(len(one.embeddings) == 1 and one.embeddings[0].values, f"one {one.embeddings}")
    expect(len(two.embeddings) == 2 and all(e.values for e in two.embeddings), f"two {two.embeddings}")
    return f"1 and 2 vectors of {len(one.embeddings[0].values)}"


def models_listed(ids) -> str:
    ids = sorted(i.removeprefix("models/") for i in ids)
    missing = [m for m in ALL_MODELS + EMBED_MODELS if m not in ids]
    expect(not missing, f"missing {missing} in {ids}")
    return f"{len(ids)} models"


def list_models(dialect) -> str:
    if isinstance(dialect, GeminiDialect):
        return models_listed(m.name for m in dialect.client.models.list())
    page = (
        dialect.client.models.list(limit=100) if isinstance(dialect, MessagesDialect) else dialect.client.models.list()
    )
    if isinstance(dialect, MessagesDialect):
        expect(all(m.type == "model" for m in page.data), f"types {[m.type for m in page.data]}")
    return models_listed(m.id for m in page.data)


def wav(seconds: int) -> bytes:
    """A silent 8 kHz mono 16-bit WAV file of `seconds`."""
    import io
    import wave

    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\0\0" * 8000 * seconds)
    return out.getvalue()


def image_generate(chat: ChatDialect) -> str:
    r = chat.client.images.generate(model="dall-e-3", prompt="a lighthouse", n=1, size="1024x1024")
    expect(len(r.data) == 1 and r.data[0].url, f"one image url, got {r.data}")
    return r.data[0].url


def speech(chat: ChatDialect) -> str:
    r = chat.client.audio.speech.create(model="tts-1", voice="alloy", input="hello there")
    audio = r.content
    expect(len(audio) > 0, "audio bytes")
    return f"{len(audio)} bytes"


def transcribe(chat: ChatDialect, translate: bool) -> str:
    audio = ("speech.wav", wav(3), "audio/wav")
    api = chat.client.audio.translations if translate else chat.client.audio.transcriptions
    r = api.create(model="whisper-1", file=audio)
    expect(r.text == "mock transcript", f"the transcript, got {r.text!r}")
    return r.text


def moderate(chat: ChatDialect) -> str:
    r = chat.client.moderations.create(model="text-moderation-stable", input="hello")
    expect(len(r.results) == 1, f"one result, got {r.results}")
    return f"flagged={r.results[0].flagged}"


def media(checks: Checks, chat: ChatDialect) -> None:
    """The other OpenAI endpoints through the openai SDK: images, speech, transcription and
    translation (a multipart upload), moderations."""
    checks.run("openai images.generate", image_generate, chat)
    checks.run("openai audio.speech", speech, chat)
    checks.run("openai audio.transcriptions", transcribe, chat, False)
    checks.run("openai audio.translations", transcribe, chat, True)
    checks.run("openai moderations", moderate, chat)


def extras(checks: Checks, chat: ChatDialect, messages: MessagesDialect, geminis: list) -> None:
    """Token counting, embeddings and model lists."""
    for provider in PROVIDERS:
        checks.run(f"messages count_tokens -> {provider}", count_tokens, messages, f"{provider}-sdk")
    for model in EMBED_MODELS:
        checks.run(f"openai embeddings -> {model}", openai_embed, chat, model)
        for g in geminis:
            checks.run(f"{g.name} embed_content -> {model}", gemini_embed, g, model)
    for dialect in [chat, messages, *geminis]:
        checks.run(f"{dialect.name} models.list", list_models, dialect)


def main() -> int:
    url, key = os.environ.get("GATEWAY_URL"), os.environ.get("GATEWAY_KEY")
    if not url or not key:
        print("GATEWAY_URL and GATEWAY_KEY must be set", file=sys.stderr)
        return 2
    url = url.rstrip("/")
    checks = Checks(sys.argv[1] if len(sys.argv) > 1 else "")
    makers = [
        ChatDialect,
        ResponsesDialect,
        MessagesDialect,
        GeminiDialect,
        partial(GeminiDialect, api_version="v1beta"),
    ]
    dialects = [make(url, key) for make in makers]
    for make, dialect in zip(makers, dialects, strict=True):
        for provider in PROVIDERS:
            turns(checks, dialect, provider)
            bad_input(checks, dialect, provider)
        edge_errors(checks, dialect, make(url, "sk-not-a-key"))
    chat, _, messages, *geminis = dialects
    extras(checks, chat, messages, geminis)
    media(checks, chat)
    print(f"{checks.passed} passed, {checks.failed} failed", flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
