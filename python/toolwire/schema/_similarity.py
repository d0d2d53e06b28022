"""How alike two tools read to a model choosing between them: ``check``'s ``ambiguous-tools`` measure.

A model routes a request to a tool from three things it sees: the name, the description and the parameter names.
Two tools whose texts say the same thing about the same objects are a coin toss for it. The measure is lexical, so
it is fast, deterministic and explainable (the shared words are reported with the score):

1. **Words.** Each text is split at anything that is not a letter or digit and at camelCase and letter/digit
   boundaries (``getWeather2`` -> ``get``, ``weather``); lower-cased; stop words (English function words and tool
   boilerplate such as *tool*, *function*, *parameter*, *specified*, *id*) and words shorter than two letters are
   dropped; each word is lightly stemmed (plural and *-ing*/*-ed* endings, a final *e*: *retrieves*, *retrieved*
   and *retrieve* are one word).
2. **The action** is read apart from the content. ``ACTIONS`` sorts common verbs into classes (*get*, *fetch*,
   *read*, *look up* retrieve; *search*, *find*, *query* search; *send*, *notify*, *submit* send; ...). A tool's
   action is the class of the first verb of its name, else of the first verb among the first three words of its
   description; those two verbs (the name's and the description's) are then left out of the content words, while
   other words of ``ACTIONS`` stay content (``list`` in *return_list_of_int* is a noun).
3. **Content vectors.** A word's weight is 3 when it is in the name, plus 1 when it names a parameter, plus
   ``1 + ln(n)`` when the description uses it ``n`` times: the name says most about what a tool is for.
4. **Score** = cosine(content vectors) x action factor, in [0, 1]. The factor is 1 when both actions are the same
   class or either is unknown, 0.85 when both are different ways of reading (retrieve, search, list), and 0.5
   when the actions differ otherwise: *read_email* and *send_email* share their objects, but a model that reads
   the verb will not confuse them.

There is no inverse-document-frequency weighting: a pair's score does not depend on which other tools are checked
with it. ``DEFAULT_SIMILARITY_THRESHOLD`` (0.55) flags pairs such as *get_weather*/*fetch_weather_report* and
*search_orders*/*find_orders* and leaves *get_weather*/*cancel_subscription* and *send_email*/*read_email* alone
(the scores are in the tests).

Limitations: synonyms are known only for the verbs of ``ACTIONS`` (*city* and *location* are different words), a
verb outside it is content, and two tools that do the same thing in different words score low.

Finding every pair over a threshold among many tools uses prefix filtering (Bayardo et al., *Scaling up all pairs
similarity search*, WWW 2007): each vector is indexed only under the words that could still lift its cosine to the
threshold, so pairs sharing only common words are never compared. The result is exact, not approximate.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "ACTIONS",
    "DEFAULT_SIMILARITY_THRESHOLD",
    "READ_ACTIONS",
    "ToolText",
    "action_factor",
    "shared_words",
    "similar_pairs",
    "similarity",
    "stem",
    "tool_text",
    "words",
]

#: ``check``'s default threshold for ``ambiguous-tools``.
DEFAULT_SIMILARITY_THRESHOLD: Final = 0.55

_NAME_WEIGHT: Final = 3.0
_PARAMETER_WEIGHT: Final = 1.0
_SAME_FAMILY: Final = 0.85
_DIFFERENT_ACTION: Final = 0.5
_DESCRIPTION_VERB_WINDOW: Final = 3

#: Verb classes, keyed by the stem of each verb (see ``stem``).
ACTIONS: Final[Mapping[str, str]] = {
    verb: action
    for action, verbs in {
        "retrieve": "get fetch retriev obtain read load show display view return lookup check describ inspect",
        "search": "search find query locat discover",
        "list": "list enumerat brows",
        "create": "creat add append insert make new regist generat book reserv schedul",
        "update": "updat modify edit chang set patch renam replac upsert",
        "delete": "delet remov destroy eras drop purg",
        "cancel": "cancel terminat abort stop revok unsubscrib",
        "send": "send notify submit dispatch deliver publish reply forward",
        "execute": "run execut invok trigger start launch",
        "calculate": "calculat comput estimat convert evaluat",
        "purchase": "buy purchas pay",
        "translate": "translat",
        "summarize": "summariz",
    }.items()
    for verb in verbs.split()
}

#: Action classes that all read: a model may still confuse them, so they score between same and different.
READ_ACTIONS: Final = frozenset({"retrieve", "search", "list"})

_STOP_WORDS: Final = frozenset(
    """
    a about above after again all also an and any are as at be because been before being below between both but by
    can could did do does doing down during each either etc eg few for from further had has have having here how i
    ie if in into is it its itself just may me might more most must my no nor not now of off on once only or other
    our out over own per same she should so some such than that the their them then there these they this those
    through to too under until up upon us very via was we were what when where whether which while who whom why
    will with within without would you your
    tool tools function functions parameter parameters param params argument arguments input inputs output outputs
    use used uses using call called given specified specific provided based information info data detail details
    optional required default defaults value values type e g id ids api
    """.split()
)

_SPLIT: Final = re.compile(r"[^A-Za-z0-9]+")
# An acronym with a plural "s" (APIs, URLs) is one word; so is an acronym before a capitalised word (HTTPServer).
_CAMEL: Final = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_DOUBLED: Final = re.compile(r"([b-df-hj-km-np-rtv-y])\1$")


def stem(word: str) -> str:
    """A light suffix-stripping stem: plurals, ``-ing``, ``-ed`` and a final ``e`` (lower-case input).

    Example:
        >>> [stem(word) for word in ("retrieves", "retrieved", "retrieving", "queries", "searches", "getting")]
        ['retriev', 'retriev', 'retriev', 'query', 'search', 'get']
    """
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif len(word) > 4 and word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix, shortest in (("ing", 6), ("ed", 5)):
        if len(word) >= shortest and word.endswith(suffix):
            word = _DOUBLED.sub(r"\1", word[: -len(suffix)])
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    """The stemmed content-bearing words of a name or a description, in order (stop words left out).

    Example:
        >>> words("getWeatherReports: the weather reports of the given cities")
        ['get', 'weather', 'report', 'weather', 'report', 'city']
    """
    return [word for word, _ in _spelled_words(text)]


def _spelled_words(text: str) -> list[tuple[str, str]]:
    """``(stem, word as written, lower-cased)`` of each content-bearing word."""
    found = []
    for part in _SPLIT.split(text):
        for piece in _CAMEL.findall(part):
            word = piece.lower()
            if len(word) < 2 or word.isdigit() or word in _STOP_WORDS:
                continue
            found.append((stem(word), word))
    return found


@dataclass(frozen=True)
class ToolText:
    """What a model reads of one tool, reduced to an action and weighted content words.

    Attributes:
        name: The tool's name.
        action: The action class (a value of ``ACTIONS``), or None when neither the name nor the description
            starts with a known verb.
        direction: ``(from, to)`` when the name reads *a_to_b* (``celsius_to_fahrenheit``), else None.
        weights: Content word (stemmed) -> weight (the verbs read as the action left out).
        norm: The Euclidean norm of ``weights``.
        spelling: Stem -> the shortest word written for it, to show people.
    """

    name: str
    action: str | None
    direction: tuple[str, str] | None
    weights: Mapping[str, float] = field(repr=False)
    norm: float = field(repr=False)
    spelling: Mapping[str, str] = field(repr=False, default_factory=dict)


def tool_text(name: str, description: str | None, parameter_names: Iterable[str] = ()) -> ToolText:
    """Reduce a tool to its action and content words (see the module docstring for the weights)."""
    spelled = [*_spelled_words(name), *_spelled_words(description or "")]
    spelled += [pair for parameter in parameter_names for pair in _spelled_words(parameter)]
    spelling: dict[str, str] = {}
    for word, written in spelled:
        if word not in spelling or len(written) < len(spelling[word]):
            spelling[word] = written
    name_words = words(name)
    description_words = words(description or "")
    name_verb = next((word for word in name_words if word in ACTIONS), None)
    description_verb = next((word for word in description_words[:_DESCRIPTION_VERB_WINDOW] if word in ACTIONS), None)
    verb = name_verb or description_verb
    action = ACTIONS[verb] if verb else None
    weights: dict[str, float] = defaultdict(float)
    for word in set(name_words):
        weights[word] += _NAME_WEIGHT
    for word in {word for parameter in parameter_names for word in words(parameter)}:
        weights[word] += _PARAMETER_WEIGHT
    for word, count in Counter(description_words).items():
        weights[word] += 1.0 + math.log(count)
    # Only the verbs read as the action leave the content: "list" in return_list_of_int is a noun.
    content = {word: weight for word, weight in weights.items() if word not in (name_verb, description_verb)}
    norm = math.sqrt(sum(weight * weight for weight in content.values()))
    return ToolText(name, action, _direction(name), content, norm, {word: spelling[word] for word in content})


def _direction(name: str) -> tuple[str, str] | None:
    """``(from, to)`` of a name that reads *a_to_b*: the words on either side of its first ``to``."""
    raw = [piece.lower() for part in _SPLIT.split(name) for piece in _CAMEL.findall(part)]
    if "to" not in raw[1:-1]:
        return None
    at = raw.index("to", 1)
    return stem(raw[at - 1]), stem(raw[at + 1])


def action_factor(first: str | None, second: str | None) -> float:
    """1 for the same (or an unknown) action, 0.85 for two ways of reading, 0.5 for different actions."""
    if first is None or second is None or first == second:
        return 1.0
    if first in READ_ACTIONS and second in READ_ACTIONS:
        return _SAME_FAMILY
    return _DIFFERENT_ACTION


def _cosine(first: ToolText, second: ToolText) -> float:
    if not first.norm or not second.norm:
        return 0.0
    small, large = sorted((first.weights, second.weights), key=len)
    dot = sum(weight * large.get(word, 0.0) for word, weight in small.items())
    return dot / (first.norm * second.norm)


def similarity(first: ToolText, second: ToolText) -> float:
    """The score of a pair: cosine of the content vectors times the action factor, in [0, 1].

    Two names that convert in different directions (*celsius_to_fahrenheit*, *fahrenheit_to_celsius*) count as
    different actions.
    """
    factor = action_factor(first.action, second.action)
    if first.direction and second.direction and first.direction != second.direction:
        factor = min(factor, _DIFFERENT_ACTION)
    return min(1.0, _cosine(first, second) * factor)


def shared_words(first: ToolText, second: ToolText, limit: int = 8) -> list[str]:
    """The content words both use (as written), the heaviest first: what makes them alike."""
    shared = set(first.weights) & set(second.weights)
    heaviest = sorted(shared, key=lambda word: (-first.weights[word] * second.weights[word], word))[:limit]
    return [first.spelling.get(word, word) for word in heaviest]


def similar_pairs(texts: Sequence[ToolText], threshold: float) -> list[tuple[int, int, float]]:
    """Every pair scoring at least ``threshold``, as ``(i, j, score)`` with ``i < j``, in index order.

    Args:
        texts: The tools.
        threshold: The lowest score reported, in (0, 1].

    Returns:
        The pairs; exact (prefix filtering only skips pairs whose cosine, an upper bound of the score, is below
        ``threshold``).
    """
    units = [{word: weight / text.norm for word, weight in text.weights.items()} if text.norm else {} for text in texts]
    margin = threshold - 1e-9  # rounding: never skip a pair at the threshold exactly
    index, rest = _prefix_index(units, margin)
    found = []
    for position, unit in enumerate(units):
        # The indexed part of each earlier vector's dot product with this one, exactly; its rest is bounded.
        partial: dict[int, float] = defaultdict(float)
        for word, weight in unit.items():
            for other, other_weight in index.get(word, ()):
                if other >= position:
                    break
                partial[other] += weight * other_weight
        for other in sorted(partial):
            if partial[other] + rest[other] >= margin:
                score = similarity(texts[other], texts[position])
                if score >= threshold:
                    found.append((other, position, score))
    return sorted(found)


def _prefix_index(
    units: Sequence[Mapping[str, float]], margin: float
) -> tuple[dict[str, list[tuple[int, float]]], list[float]]:
    """Each unit vector indexed under its rarer words only, and the bound of what it leaves out.

    The common words a vector leaves unindexed could not, even against every other vector's largest weight of
    them, lift a cosine to ``margin``; that bound is kept per vector. Index lists are in position order.
    """
    frequency: Counter[str] = Counter(word for unit in units for word in unit)
    largest: dict[str, float] = defaultdict(float)
    for unit in units:
        for word, weight in unit.items():
            largest[word] = max(largest[word], weight)
    index: dict[str, list[tuple[int, float]]] = defaultdict(list)
    rest: list[float] = []
    for position, unit in enumerate(units):
        bound = 0.0
        for word in sorted(unit, key=lambda w: (-frequency[w], w)):
            if bound + unit[word] * largest[word] >= margin:
                index[word].append((position, unit[word]))
            else:
                bound += unit[word] * largest[word]
        rest.append(bound)
    return index, rest
