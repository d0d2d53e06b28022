"""Model specs of ``toolwire matrix``: the compact form, models files in YAML, TOML and JSON, and labels."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.cases._spec import SPEC_FORMATS, ModelSpec, assign_labels, load_models, parse_spec


def test_the_documented_examples_read_as_documented() -> None:
    plain = parse_spec("openai-chat:gpt-4.1")
    assert (plain.format, plain.model, plain.base_url) == ("openai-chat", "gpt-4.1", "https://api.openai.com/v1")
    assert plain.key_env is None and plain.api_key_env == "OPENAI_API_KEY" and plain.stream is None

    local = parse_spec("openai-chat:my-vllm@http://localhost:8000/v1/")
    assert (local.model, local.base_url) == ("my-vllm", "http://localhost:8000/v1")

    claude = parse_spec(
        "anthropic-messages:claude-x@https://api.example.com/v1,key_env=MY_KEY,temperature=0,stream=true"
    )
    assert claude.api_key_env == "MY_KEY"
    assert claude.stream is True
    assert dict(claude.sampling) == {"temperature": 0.0}

    # A colon and an '@' not followed by a scheme stay in the model name.
    ollama = parse_spec("openai-chat:llama3.1:8b@http://localhost:11434/v1,label=llama")
    assert (ollama.model, ollama.label) == ("llama3.1:8b", "llama")
    vertex = parse_spec("anthropic-messages:claude-3@20240229@https://vertex.example/v1")
    assert (vertex.model, vertex.base_url) == ("claude-3@20240229", "https://vertex.example/v1")
    assert parse_spec("anthropic-messages:claude-x").base_url == "https://api.anthropic.com/v1"


def test_params_are_json_when_they_parse_and_strings_otherwise() -> None:
    spec = parse_spec('openai-responses:o4,params.reasoning={"effort":"low"},params.store=false,params.user=ci')
    assert dict(spec.params) == {"reasoning": {"effort": "low"}, "store": False, "user": "ci"}


def test_the_api_key_is_read_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = parse_spec("openai-chat:m,key_env=MATRIX_TEST_KEY")
    monkeypatch.delenv("MATRIX_TEST_KEY", raising=False)
    assert spec.api_key() is None
    monkeypatch.setenv("MATRIX_TEST_KEY", "sk-test")
    assert spec.api_key() == "sk-test"
    assert "sk-test" not in json.dumps(spec.as_dict())


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("gpt-4.1", ["no ':' after the format", "FORMAT:MODEL"]),
        ("openai:gpt-4.1", ["unknown format 'openai'", "openai-chat"]),
        ("openai-chat:", ["the model name is empty"]),
        ("openai-chat:@http://localhost:1/v1", ["the model name is empty"]),
        ("openai-chat:m@localhost:8000/v1", ["'localhost:8000/v1'", "write @http://localhost:8000/v1"]),
        ("openai-chat:m@ftp://example.com", ["'ftp://example.com'", "http://"]),
        ("openai-chat:m,temperature=hot", ["temperature", "expected a number", "'hot'"]),
        ("openai-chat:m,temperature=3", ["temperature", "from 0 to 2"]),
        ("openai-chat:m,top_p=-0.1", ["top_p", "from 0 to 1"]),
        ("openai-chat:m,max_tokens=0", ["max_tokens", "at least 1"]),
        ("openai-chat:m,stream=maybe", ["stream", "true or false"]),
        ("openai-chat:m,temprature=1", ["temprature", "unknown option", "temperature"]),
        ("openai-chat:m,top_k=5", ["top_k is not a parameter of openai-chat", "params.top_k"]),
        ("anthropic-messages:m,seed=5", ["seed is not a parameter of anthropic-messages"]),
        ("openai-chat:m,key_env=MY-KEY", ["key_env", "not an environment variable name"]),
        ("openai-chat:m,temperature=1,temperature=0", ["temperature", "given twice"]),
        ("openai-chat:m,params.model=x", ["params.model", "override"]),
        ("openai-chat:m,params.=1", ["params. needs a field name"]),
    ],
)
def test_a_bad_spec_is_refused_naming_the_part_at_fault(text: str, names: list[str]) -> None:
    with pytest.raises(ValueError) as raised:
        parse_spec(text)
    message = str(raised.value)
    assert repr(text) in message
    for name in names:
        assert name in message


_NAME = st.text(string.ascii_letters + string.digits + "-_.:/", min_size=1, max_size=20).filter(
    lambda name: name[0] not in ":/" and not name.startswith("@")
)
_MODEL = st.one_of(_NAME, st.builds(lambda a, b: f"{a}@{b}", _NAME, st.text(string.digits, min_size=1, max_size=8)))
_URL = st.one_of(
    st.just(""),
    st.builds(
        lambda scheme, host, port, path: f"{scheme}://{host}:{port}{path}",
        st.sampled_from(["http", "https"]),
        st.sampled_from(["localhost", "127.0.0.1", "models.example.com"]),
        st.integers(1, 65535),
        st.sampled_from(["", "/v1", "/openai/v1"]),
    ),
)


@st.composite
def specs(draw: st.DrawFn) -> ModelSpec:
    fmt = draw(st.sampled_from(SPEC_FORMATS))
    sampling = {}
    if draw(st.booleans()):
        sampling["temperature"] = draw(st.floats(0, 2, allow_nan=False))
    if draw(st.booleans()):
        sampling["max_tokens"] = draw(st.integers(1, 100_000))
    if fmt == "openai-chat" and draw(st.booleans()):
        sampling["seed"] = draw(st.integers(-(2**31), 2**31))
    if fmt == "anthropic-messages" and draw(st.booleans()):
        sampling["top_k"] = draw(st.integers(1, 500))
    params = draw(
        st.dictionaries(
            st.text(string.ascii_lowercase + "_", min_size=1, max_size=8).filter(
                lambda k: k not in ("model", "stream")
            ),
            st.one_of(st.booleans(), st.integers(-5, 5), st.text(string.ascii_letters + " 1", max_size=6)),
            max_size=2,
        )
    )
    return ModelSpec(
        format=fmt,
        model=draw(_MODEL),
        base_url=draw(_URL),
        key_env=draw(st.one_of(st.none(), st.sampled_from(["MY_KEY", "OTHER_KEY"]))),
        stream=draw(st.one_of(st.none(), st.booleans())),
        timeout=draw(st.one_of(st.none(), st.floats(0.5, 600, allow_nan=False))),
        sampling=sampling,
        params=params,
        label=draw(st.one_of(st.just(""), st.text(string.ascii_letters + " -", min_size=1, max_size=10))).strip(),
    )


@given(specs())
def test_the_compact_form_reads_back_to_the_same_spec(spec: ModelSpec) -> None:
    assert parse_spec(spec.compact()) == spec


def test_a_models_file_in_yaml_toml_and_json_gives_the_same_specs(tmp_path: Path) -> None:
    yaml_file = tmp_path / "models.yaml"
    yaml_file.write_text(
        "defaults: {temperature: 0, stream: false}\n"
        "models:\n"
        "  gpt: openai-chat:gpt-4.1\n"
        '  local: {spec: "openai-chat:my-vllm@http://localhost:8000/v1", stream: true}\n'
        "  claude:\n"
        "    format: anthropic-messages\n"
        "    model: claude-x\n"
        "    key_env: MY_KEY\n"
        "    top_k: 40\n"
        "    params: {metadata: {user_id: ci}}\n",
        encoding="utf-8",
    )
    toml_file = tmp_path / "models.toml"
    toml_file.write_text(
        "[defaults]\ntemperature = 0\nstream = false\n\n"
        '[models.gpt]\nspec = "openai-chat:gpt-4.1"\n\n'
        '[models.local]\nspec = "openai-chat:my-vllm@http://localhost:8000/v1"\nstream = true\n\n'
        '[models.claude]\nformat = "anthropic-messages"\nmodel = "claude-x"\nkey_env = "MY_KEY"\ntop_k = 40\n'
        '[models.claude.params.metadata]\nuser_id = "ci"\n',
        encoding="utf-8",
    )
    json_file = tmp_path / "models.json"
    json_file.write_text(
        json.dumps(
            {
                "defaults": {"temperature": 0, "stream": False},
                "models": [
                    {"spec": "openai-chat:gpt-4.1", "label": "gpt"},
                    {"spec": "openai-chat:my-vllm@http://localhost:8000/v1,stream=true,label=local"},
                    {
                        "label": "claude",
                        "format": "anthropic-messages",
                        "model": "claude-x",
                        "key_env": "MY_KEY",
                        "top_k": 40,
                        "params": {"metadata": {"user_id": "ci"}},
                    },
                ],
            }
        ),
        encoding="utf-8",
    )
    read = [load_models(path) for path in (yaml_file, toml_file, json_file)]
    assert read[0] == read[1] == read[2]
    gpt, local, claude = read[0]
    assert (gpt.label, gpt.stream, dict(gpt.sampling)) == ("gpt", False, {"temperature": 0.0})
    assert (local.label, local.stream, local.base_url) == ("local", True, "http://localhost:8000/v1")
    assert (claude.api_key_env, dict(claude.params)) == ("MY_KEY", {"metadata": {"user_id": "ci"}})
    assert dict(claude.sampling) == {"temperature": 0.0, "top_k": 40}
    # The same spec, written compactly, is the same model.
    assert parse_spec("openai-chat:gpt-4.1,label=gpt,stream=false,temperature=0") == gpt


@pytest.mark.parametrize(
    ("document", "names"),
    [
        ("models: []\n", ["models: empty"]),
        ("modles: [openai-chat:m]\n", ["modles: unknown key"]),
        ("models: [openai-chat:m]\ndefaults: {colour: red}\n", ["defaults.colour: unknown key"]),
        ("models:\n  - {format: openai-chat}\n", ["models[0]", "missing 'model'"]),
        ("models:\n  - {spec: 'openai-chat:m', model: n}\n", ["models[0].model", "already given by 'spec'"]),
        ("models:\n  - {spec: 'openai-chat:m', temperature: hot}\n", ["models[0].temperature", "expected a number"]),
        ("models:\n  - {spec: 'openai-chat:m', stream: 'yes'}\n", ["models[0].stream", "true or false"]),
        ("models:\n  a: {spec: 'openai-chat:m', label: b}\n", ["models.a", "drop the 'label' field"]),
        ("models:\n  - 42\n", ["models[0]", "compact spec string or a table"]),
        ("models:\n  - {spec: 'openai-chat:m', params: [1]}\n", ["models[0].params", "table of request-body fields"]),
    ],
)
def test_a_bad_models_file_is_refused_naming_the_file_and_the_entry(
    tmp_path: Path, document: str, names: list[str]
) -> None:
    path = tmp_path / "models.yaml"
    path.write_text(document, encoding="utf-8")
    with pytest.raises(ValueError) as raised:
        load_models(path)
    assert str(path) in str(raised.value)
    for name in names:
        assert name in str(raised.value)


def test_a_models_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "models.ini"
    path.write_text("[models]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"models\.ini: a models file is \.yaml, \.yml, \.toml or \.json"):
        load_models(path)
    broken = tmp_path / "broken.toml"
    broken.write_text("models = [", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.toml: not valid TOML"):
        load_models(broken)


def test_labels_are_the_model_name_made_unique_only_where_needed() -> None:
    given_specs = [
        parse_spec("openai-chat:gpt-4.1"),
        parse_spec("openai-chat:same@http://a.example/v1"),
        parse_spec("anthropic-messages:same@http://a.example/v1"),
        parse_spec("openai-chat:twin@http://a.example/v1"),
        parse_spec("openai-chat:twin@http://b.example/v1"),
        parse_spec("openai-chat:hot@http://a.example/v1,temperature=1"),
        parse_spec("openai-chat:hot@http://a.example/v1,temperature=0"),
        parse_spec("openai-chat:mine,label=chosen"),
    ]
    labels = [spec.label for spec in assign_labels(given_specs)]
    assert labels == [
        "gpt-4.1",
        "openai-chat:same",
        "anthropic-messages:same",
        "openai-chat:twin@a.example",
        "openai-chat:twin@b.example",
        "openai-chat:hot@http://a.example/v1,temperature=1.0",
        "openai-chat:hot@http://a.example/v1,temperature=0.0",
        "chosen",
    ]
    assert len(set(labels)) == len(labels)


def test_the_same_model_twice_or_a_label_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="is the same model as"):
        assign_labels([parse_spec("openai-chat:m"), parse_spec("openai-chat:m,label=other")])
    with pytest.raises(ValueError, match="label 'x' is already the label of"):
        assign_labels([parse_spec("openai-chat:a,label=x"), parse_spec("openai-chat:b,label=x")])
