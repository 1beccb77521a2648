"""One driver per client SDK: each sends the same turns (text, image, tool call, tool
result, bad input) in its own SDK's way and returns what the SDK parsed as an `Answer`.

Streams are consumed event by event through the SDK; each driver checks the events it
sees (order, types, sequence numbers) and that the text or tool call it assembled from
the deltas is what the SDK's final object holds.
"""

import base64
import json
from dataclasses import dataclass, field
from typing import Any, Optional

import anthropic
import openai
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as gt

SYSTEM = "Answer in one short sentence."
PROMPT = "What is the weather like?"
IMAGE_PROMPT = "What is in this image?"
TOOL_RESULT = "sunny, 21 C"
TOOL = {
    "name": "get_weather",
    "description": "Current weather in a city",
    "schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
# A 1x1 PNG, and bytes that claim to be one but are not.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
NOT_AN_IMAGE = b"this is not an image at all"
TIMEOUT_S = 30


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def data_url(data: bytes) -> str:
    return f"data:image/png;base64,{b64(data)}"


@dataclass
class Answer:
    """What an SDK parsed from one answer (or assembled from one stream)."""

    text: str = ""
    calls: list = field(default_factory=list)  # [(name, args dict)]
    usage: Optional[tuple] = None  # (input tokens, output tokens)
    stop: Any = None
    carry: Any = None  # what the SDK hands back to replay this turn
    events: int = 0


def expect(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def in_order(seen: list, wanted: list, what: str) -> None:
    """`wanted` appears in `seen` in this order (other items may sit between)."""
    it = iter(seen)
    missing = [w for w in wanted if not any(s == w for s in it)]
    expect(not missing, f"{what}: {missing} missing or out of order in {seen}")


class ChatDialect:
    """openai `client.chat.completions` on `/v1/chat/completions`."""

    name = "chat"
    errors = {
        400: openai.BadRequestError,
        401: openai.AuthenticationError,
        404: openai.NotFoundError,
        503: openai.InternalServerError,
    }

    def __init__(self, url: str, key: str):
        self.client = openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=TIMEOUT_S)

    def _send(self, model, stream, messages, **kw) -> Answer:
        if not stream:
            r = self.client.chat.completions.create(model=model, messages=messages, **kw)
            expect(r.object == "chat.completion", f"object {r.object!r}")
            msg = r.choices[0].message
            calls = [(c.function.name, json.loads(c.function.arguments)) for c in msg.tool_calls or []]
            usage = (r.usage.prompt_tokens, r.usage.completion_tokens) if r.usage else None
            return Answer(msg.content or "", calls, usage, r.choices[0].finish_reason, msg)
        text, slots, usage, stop, events = "", {}, None, None, 0
        chunks = self.client.chat.completions.create(
            model=model, messages=messages, stream=True, stream_options={"include_usage": True}, **kw
        )
        for chunk in chunks:
            events += 1
            expect(chunk.object == "chat.completion.chunk", f"chunk object {chunk.object!r}")
            usage = (chunk.usage.prompt_tokens, chunk.usage.completion_tokens) if chunk.usage else usage
            for choice in chunk.choices:
                text += choice.delta.content or ""
                stop = choice.finish_reason or stop
                for tc in choice.delta.tool_calls or []:
                    slot = slots.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
                    slot["id"] = tc.id or slot["id"]
                    if tc.function:
                        slot["name"] += tc.function.name or ""
                        slot["arguments"] += tc.function.arguments or ""
        calls = [(s["name"], json.loads(s["arguments"])) for s in slots.values()]
        carry = {
            "role": "assistant",
            "content": text or None,
            "tool_calls": [
                {"id": s["id"], "type": "function", "function": {"name": s["name"], "arguments": s["arguments"]}}
                for s in slots.values()
            ],
        }
        return Answer(text, calls, usage, stop, carry, events)

    def text(self, model, stream, image=False) -> Answer:
        if not image:
            messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": PROMPT}]
            return self._send(model, stream, messages, max_tokens=256, temperature=0.5)
        content = [
            {"type": "text", "text": IMAGE_PROMPT},
            {"type": "image_url", "image_url": {"url": data_url(PNG)}},
        ]
        return self._send(model, stream, [{"role": "user", "content": content}])

    def _tools(self):
        return [
            {
                "type": "function",
                "function": {"name": TOOL["name"], "description": TOOL["description"], "parameters": TOOL["schema"]},
            }
        ]

    def tool(self, model, stream) -> Answer:
        return self._send(model, stream, [{"role": "user", "content": PROMPT}], tools=self._tools())

    def follow_up(self, model, stream, first: Answer) -> Answer:
        call = first.carry
        call = call if isinstance(call, dict) else call.model_dump(exclude_none=True)
        results = [{"role": "tool", "tool_call_id": c["id"], "content": TOOL_RESULT} for c in call["tool_calls"]]
        messages = [{"role": "user", "content": PROMPT}, call, *results]
        return self._send(model, stream, messages, tools=self._tools())

    def bad_request(self, model):
        self.client.chat.completions.create(model=model, messages=[{"role": "robot", "content": "hi"}])

    def bad_image(self, model):
        content = [
            {"type": "text", "text": IMAGE_PROMPT},
            {"type": "image_url", "image_url": {"url": data_url(NOT_AN_IMAGE)}},
        ]
        self.client.chat.completions.create(model=model, messages=[{"role": "user", "content": content}])

    @staticmethod
    def status_of(e) -> int:
        return e.status_code

    @staticmethod
    def error_shape(e) -> str:
        """OpenAI's `{"error": {"message", "type", "param", "code"}}`."""
        body = e.response.json()
        err = body.get("error") if isinstance(body, dict) else None
        expect(isinstance(err, dict), f"no error object: {body}")
        expect(body.get("type") != "error", f"Anthropic-shaped error: {body}")
        expect(
            isinstance(err.get("message"), str) and isinstance(err.get("type"), str),
            f"error without message/type: {body}",
        )
        expect("status" not in err, f"Google-shaped error: {body}")
        return err["message"]


class ResponsesDialect:
    """openai `client.responses` on `/v1/responses`."""

    name = "responses"
    errors = ChatDialect.errors
    status_of = staticmethod(ChatDialect.status_of)
    error_shape = staticmethod(ChatDialect.error_shape)

    def __init__(self, url: str, key: str):
        self.client = openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=TIMEOUT_S)

    @staticmethod
    def _answer(r, events=0, streamed_text=None) -> Answer:
        expect(r.object == "response" and r.status == "completed", f"response {r.object!r} {r.status!r}")
        calls = [(o.name, json.loads(o.arguments)) for o in r.output if o.type == "function_call"]
        if streamed_text is not None:
            expect(streamed_text == r.output_text, f"deltas {streamed_text!r} != final {r.output_text!r}")
        usage = (r.usage.input_tokens, r.usage.output_tokens) if r.usage else None
        return Answer(r.output_text, calls, usage, r.status, r.output, events)

    def _send(self, model, stream, input, **kw) -> Answer:
        if not stream:
            return self._answer(self.client.responses.create(model=model, input=input, **kw))
        kinds, seqs, text, args, final = [], [], "", {}, None
        for ev in self.client.responses.create(model=model, input=input, stream=True, **kw):
            expect(type(ev).__name__.startswith("Response"), f"untyped event {ev!r}")
            kinds.append(ev.type)
            seqs.append(ev.sequence_number)
            if ev.type == "response.output_text.delta":
                text += ev.delta
            elif ev.type == "response.function_call_arguments.delta":
                args[ev.item_id] = args.get(ev.item_id, "") + ev.delta
            elif ev.type == "response.function_call_arguments.done":
                expect(args.get(ev.item_id, "") == ev.arguments, f"argument deltas {args} != done {ev.arguments!r}")
            elif ev.type == "response.completed":
                final = ev.response
        expect(seqs == sorted(seqs) and len(set(seqs)) == len(seqs), f"sequence numbers {seqs}")
        in_order(
            kinds,
            ["response.created", "response.output_item.added", "response.output_item.done", "response.completed"],
            "events",
        )
        expect(kinds[-1] == "response.completed", f"last event {kinds[-1]}")
        for item_id, streamed in args.items():
            done = [o.arguments for o in final.output if o.type == "function_call" and o.id == item_id]
            expect(done == [streamed], f"streamed arguments {streamed!r} != final {done}")
        return self._answer(final, len(kinds), text)

    def text(self, model, stream, image=False) -> Answer:
        if not image:
            return self._send(model, stream, PROMPT, instructions=SYSTEM, max_output_tokens=256, temperature=0.5)
        content = [{"type": "input_text", "text": IMAGE_PROMPT}, {"type": "input_image", "image_url": data_url(PNG)}]
        return self._send(model, stream, [{"role": "user", "content": content}])

    def _tools(self):
        return [
            {"type": "function", "name": TOOL["name"], "description": TOOL["description"], "parameters": TOOL["schema"]}
        ]

    def tool(self, model, stream) -> Answer:
        return self._send(model, stream, [{"role": "user", "content": PROMPT}], tools=self._tools())

    def follow_up(self, model, stream, first: Answer) -> Answer:
        # The SDK's documented way: replay the output items, then add the outputs.
        outputs = [
            {"type": "function_call_output", "call_id": o.call_id, "output": TOOL_RESULT}
            for o in first.carry
            if o.type == "function_call"
        ]
        input = [{"role": "user", "content": PROMPT}, *first.carry, *outputs]
        return self._send(model, stream, input, tools=self._tools())

    def bad_request(self, model):
        self.client.responses.create(model=model)

    def bad_image(self, model):
        content = [
            {"type": "input_text", "text": IMAGE_PROMPT},
            {"type": "input_image", "image_url": data_url(NOT_AN_IMAGE)},
        ]
        self.client.responses.create(model=model, input=[{"role": "user", "content": content}])


class MessagesDialect:
    """anthropic `client.messages` on `/v1/messages`."""

    name = "messages"
    errors = {
        400: anthropic.BadRequestError,
        401: anthropic.AuthenticationError,
        404: anthropic.NotFoundError,
        503: anthropic.APIStatusError,
    }
    kinds = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error", 503: "api_error"}

    def __init__(self, url: str, key: str):
        self.client = anthropic.Anthropic(base_url=url, api_key=key, max_retries=0, timeout=TIMEOUT_S)

    @staticmethod
    def _answer(m, events=0) -> Answer:
        expect(m.type == "message" and m.role == "assistant", f"message {m.type!r} {m.role!r}")
        text = "".join(b.text for b in m.content if b.type == "text")
        calls = [(b.name, b.input) for b in m.content if b.type == "tool_use"]
        usage = (m.usage.input_tokens, m.usage.output_tokens) if m.usage else None
        return Answer(text, calls, usage, m.stop_reason, m.content, events)

    def _send(self, model, stream, messages, **kw) -> Answer:
        kw = {"model": model, "max_tokens": 1024, "messages": messages, **kw}
        if not stream:
            return self._answer(self.client.messages.create(**kw))
        kinds, text, partial = [], "", {}
        with self.client.messages.stream(**kw) as s:
            for ev in s:
                kinds.append(ev.type)
                if ev.type == "content_block_delta" and ev.delta.type == "text_delta":
                    text += ev.delta.text
                elif ev.type == "content_block_delta" and ev.delta.type == "input_json_delta":
                    partial[ev.index] = partial.get(ev.index, "") + ev.delta.partial_json
            final = s.get_final_message()
        raw = [k for k in kinds if k not in ("text", "input_json", "thinking", "signature", "citation")]
        expect(raw[:1] == ["message_start"] and raw[-1:] == ["message_stop"], f"events {raw}")
        in_order(
            raw,
            ["message_start", "content_block_start", "content_block_stop", "message_delta", "message_stop"],
            "events",
        )
        expect(raw.count("content_block_start") == raw.count("content_block_stop"), f"unbalanced blocks {raw}")
        answer = MessagesDialect._answer(final, len(kinds))
        expect(text == answer.text, f"deltas {text!r} != final {answer.text!r}")
        for index, streamed in partial.items():
            expect(
                json.loads(streamed) == final.content[index].input,
                f"partial_json {streamed!r} != {final.content[index].input}",
            )
        return answer

    def text(self, model, stream, image=False) -> Answer:
        if not image:
            messages = [{"role": "user", "content": PROMPT}]
            return self._send(model, stream, messages, system=SYSTEM, stop_sequences=["END"])
        content = [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)}},
            {"type": "text", "text": IMAGE_PROMPT},
        ]
        return self._send(model, stream, [{"role": "user", "content": content}])

    def _tools(self):
        return [{"name": TOOL["name"], "description": TOOL["description"], "input_schema": TOOL["schema"]}]

    def tool(self, model, stream) -> Answer:
        return self._send(model, stream, [{"role": "user", "content": PROMPT}], tools=self._tools())

    def follow_up(self, model, stream, first: Answer) -> Answer:
        results = [
            {"type": "tool_result", "tool_use_id": b.id, "content": TOOL_RESULT}
            for b in first.carry
            if b.type == "tool_use"
        ]
        messages = [
            {"role": "user", "content": PROMPT},
            {"role": "assistant", "content": first.carry},
            {"role": "user", "content": results},
        ]
        return self._send(model, stream, messages, tools=self._tools())

    def bad_request(self, model):
        # The SDK refuses to leave out max_tokens, so the body goes out raw.
        body = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
        self.client.post("/v1/messages", cast_to=anthropic.types.Message, body=body)

    def bad_image(self, model):
        image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(NOT_AN_IMAGE)}}
        self.client.messages.create(
            model=model,
            max_tokens=1024,
            messages=[{"role": "user", "content": [image, {"type": "text", "text": IMAGE_PROMPT}]}],
        )

    status_of = staticmethod(ChatDialect.status_of)

    @classmethod
    def error_shape(cls, e) -> str:
        """Anthropic's `{"type": "error", "error": {"type", "message"}}`, typed by status."""
        body = e.response.json()
        err = body.get("error") if isinstance(body, dict) else None
        expect(body.get("type") == "error" and isinstance(err, dict), f"not Anthropic-shaped: {body}")
        expect(isinstance(err.get("message"), str), f"error without message: {body}")
        want = cls.kinds.get(e.status_code)
        expect(err.get("type") == want, f"error type {err.get('type')!r} for {e.status_code}, wanted {want!r}")
        return err["message"]


class GeminiDialect:
    """google-genai `client.models` on `/{api_version}/models/…`."""

    errors = {
        400: genai_errors.ClientError,
        401: genai_errors.ClientError,
        404: genai_errors.ClientError,
        503: genai_errors.ServerError,
    }
    statuses = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 404: "NOT_FOUND", 503: "UNAVAILABLE"}

    def __init__(self, url: str, key: str, api_version: Optional[str] = None):
        options = {"base_url": url, "timeout": TIMEOUT_S * 1000}
        if api_version:
            options["api_version"] = api_version
        self.name = f"gemini-{api_version or 'default'}"
        self.client = genai.Client(api_key=key, http_options=gt.HttpOptions(**options))

    @staticmethod
    def _parts(r):
        cands = r.candidates or []
        return [p for c in cands[:1] if c.content for p in c.content.parts or []]

    def _send(self, model, stream, contents, **config) -> Answer:
        config = gt.GenerateContentConfig(**config) if config else None
        kw = {"model": model, "contents": contents, "config": config}
        chunks = (
            list(self.client.models.generate_content_stream(**kw))
            if stream
            else [self.client.models.generate_content(**kw)]
        )
        expect(chunks, "no chunks")
        parts = [p for r in chunks for p in self._parts(r)]
        for r in chunks:
            expect(isinstance(r, gt.GenerateContentResponse), f"chunk {type(r).__name__}")
        text = "".join(p.text for p in parts if p.text and not p.thought)
        calls = [(p.function_call.name, dict(p.function_call.args or {})) for p in parts if p.function_call]
        if not stream and not calls:
            expect(chunks[0].text == text, f"response.text {chunks[0].text!r} != parts {text!r}")
        meta = [r.usage_metadata for r in chunks if r.usage_metadata]
        usage = (meta[-1].prompt_token_count, meta[-1].candidates_token_count) if meta else None
        stops = [c.finish_reason for r in chunks for c in r.candidates or [] if c.finish_reason]
        carry = gt.Content(role="model", parts=[p for p in parts if p.function_call])
        return Answer(text, calls, usage, stops[-1] if stops else None, carry, len(chunks))

    def text(self, model, stream, image=False) -> Answer:
        if not image:
            return self._send(model, stream, PROMPT, system_instruction=SYSTEM, max_output_tokens=256, temperature=0.5)
        return self._send(model, stream, [gt.Part.from_bytes(data=PNG, mime_type="image/png"), IMAGE_PROMPT])

    def _tools(self):
        decl = gt.FunctionDeclaration(
            name=TOOL["name"], description=TOOL["description"], parameters_json_schema=TOOL["schema"]
        )
        return [gt.Tool(function_declarations=[decl])]

    def tool(self, model, stream) -> Answer:
        return self._send(model, stream, PROMPT, tools=self._tools())

    def follow_up(self, model, stream, first: Answer) -> Answer:
        results = [
            gt.Part.from_function_response(name=p.function_call.name, response={"result": TOOL_RESULT})
            for p in first.carry.parts
        ]
        contents = [
            gt.Content(role="user", parts=[gt.Part(text=PROMPT)]),
            first.carry,
            gt.Content(role="user", parts=results),
        ]
        return self._send(model, stream, contents, tools=self._tools())

    def bad_request(self, model):
        self.client.models.generate_content(
            model=model, contents=[gt.Content(role="robot", parts=[gt.Part(text="hi")])]
        )

    def bad_image(self, model):
        self.client.models.generate_content(
            model=model, contents=[gt.Part.from_bytes(data=NOT_AN_IMAGE, mime_type="image/png"), IMAGE_PROMPT]
        )

    @staticmethod
    def status_of(e) -> int:
        return e.code

    @classmethod
    def error_shape(cls, e) -> str:
        """Google's `{"error": {"code", "message", "status"}}`, the status named for the code."""
        body = e.details
        err = body.get("error") if isinstance(body, dict) else None
        expect(isinstance(err, dict) and body.get("type") != "error", f"not Google-shaped: {body}")
        expect(err.get("code") == e.code and isinstance(err.get("message"), str), f"error without code/message: {body}")
        want = cls.statuses.get(e.code)
        expect(err.get("status") == want, f"status {err.get('status')!r} for {e.code}, wanted {want!r}")
        return err["message"]
