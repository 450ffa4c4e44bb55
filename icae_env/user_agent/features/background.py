"""How generic a word is: its document frequency over a background of tasks, as a specificity in ``[0, 1]``.

The answerability gate (:mod:`icae_env.user_agent.features.gate`) must tell a question that shares only generic words
with a record ("default", "format", "output", "error") from one that shares the record's subject. A task's own IDF
cannot: a word rare in the task may be common to every task. So each stem gets a *specificity* from a background of
other tasks, ``log((1 + N) / (1 + df)) / log(1 + N)`` over ``N`` background units (tasks) of which ``df`` contain
it: 1 for a word no background task uses, 0 for one that every task uses.

:data:`DEFAULT_BACKGROUND` counts the built-in tasks only (each task, all its levels' PRDs and User Agent Data, is
one unit) and keeps the stems that at least two tasks use: a stem of a single task is treated as specific, so that
no task's own vocabulary is stored. A task that is itself one of the units (a built-in task) would see its own words
as more generic than a new task sees its own, so the background also keeps a fingerprint of each unit (hashes of
its task-specific records' responses): for a member task, its own words count one unit less
(:meth:`Background.specificity` with ``own``), which is exactly the background without it. It is rebuilt by
:func:`benchmarks.router_fit.fits.builtin_background` (a test checks that the two agree).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from icae_env.errors import ArgumentError

__all__ = ["Background", "DEFAULT_BACKGROUND", "build_background", "fingerprint"]


@dataclass(frozen=True)
class Background:
    """Document frequencies of stems over ``units`` background units (stems missing from ``df`` count as 0).

    Attributes:
        units: How many units (tasks) were counted.
        df: Per stem, how many units contain it.
    """

    units: int
    df: Mapping[str, int] = field(default_factory=dict)
    min_df: int = 1
    members: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if not isinstance(self.units, int) or self.units < 1:
            raise ArgumentError(f"units must be an int >= 1, got {self.units!r}")

    def specificity(self, stem: str, own: bool = False) -> float:
        """Return how specific ``stem`` is: 1 when no unit uses it, 0 when all do.

        Args:
            stem: The stem (or concept token).
            own: Whether the stem is a word of a task that is itself a unit: that unit is not counted.
        """
        units, df = self.units - own, self.df.get(stem, 0) - own
        if df < self.min_df:
            df = 0
        return math.log((1 + units) / (1 + min(df, units))) / math.log(1 + units) if units else 1.0

    def is_member(self, responses: Iterable[str]) -> bool:
        """Return whether a task with these task-specific record responses is one of the units."""
        return any(fingerprint(r) in self.members for r in responses)

    def encode(self) -> str:
        """Return the compact text form ``"<units> <min_df>|<stem>:<df> ...|<fingerprint> ..."`` (sorted)."""
        body = " ".join(f"{s}:{c}" for s, c in sorted(self.df.items()))
        return f"{self.units} {self.min_df}|{body}|{' '.join(sorted(self.members))}"

    @classmethod
    def decode(cls, text: str) -> Background:
        """Return the background written by :meth:`encode`."""
        head, body, members = (text.split("|") + ["", ""])[:3]
        units, min_df = (int(v) for v in head.split())
        pairs = (item.rsplit(":", 1) for item in body.split())
        return cls(units, {s: int(c) for s, c in pairs}, min_df, frozenset(members.split()))


def fingerprint(response: str) -> str:
    """Return the short hash of a record's response that identifies a background unit's records."""
    return hashlib.sha256(" ".join(response.split()).encode()).hexdigest()[:12]


def build_background(units: Iterable[Iterable[str]], min_df: int = 2, responses: Iterable[str] = ()) -> Background:
    """Count, per stem, the units that contain it, keeping the stems of at least ``min_df`` units.

    Args:
        units: The stems of each background unit.
        min_df: Stems used by fewer units are left out (they count as unused).
        responses: The task-specific record responses of the units (their fingerprints are kept).

    Raises:
        ArgumentError: if there is no unit or ``min_df`` < 1.
    """
    if not isinstance(min_df, int) or min_df < 1:
        raise ArgumentError(f"min_df must be an int >= 1, got {min_df!r}")
    df: Counter[str] = Counter()
    count = 0
    for unit in units:
        df.update(set(unit))
        count += 1
    if not count:
        raise ArgumentError("a background needs at least one unit")
    kept = {s: c for s, c in sorted(df.items()) if c >= min_df}
    return Background(count, kept, min_df, frozenset(fingerprint(r) for r in responses if r.strip()))


#: The built-in tasks' background (see the module docstring), in :meth:`Background.encode` form.
_DEFAULT_TEXT = (
    "12 2|0:11 00:4 000:6 0001:2 001:2 002:2 004:2 007:5 01:7 02:4 03:3 04:3 05:5 06:2 07:2 08:2 09:2 1:12 10:9 "
    "100:5 1000:5 11:4 12:5 123:2 13:3 15:3 150:3 16:3 17:2 2:12 20:7 200:3 2023:2 2024:3 23:2 24:2 25:4 250:3 29:2"
    " 3:12 30:3 300:3 31:4 33:2 35:2 4:12 40:2 400:4 42:2 429:2 45:2 5:12 50:4 500:4 59:2 6:12 60:3 600:2 7:11 8:10"
    " 80:2 9:10 900:2 99:3 999:3 9999:3 abc:5 abov:7 absent:8 accept:7 access:3 across:3 action:2 adapter:12 add:7 "
    "affect:5 after:12 again:2 against:5 agre:3 algorithm:2 align:2 allow:11 already:8 alternativ:2 alway:12 "
    "among:2 amount:2 another:3 answer:7 anyth:11 anywher:7 api:12 app:7 appear:5 append:4 appli:2 arbitrari:3 "
    "architectur:5 arithmetic:3 around:4 array:7 ascend:2 ascii:6 ask:12 attempt:2 authoritativ:2 away:2 b:10 "
    "back:8 background:2 backslash:2 backward:2 bad:12 bare:2 bas:12 base:2 bash:12 basic:6 beat:2 becaus:6 becom:4"
    " befor:12 begin:2 behav:3 behaviour:2 belong:2 below:11 besid:12 best:2 better:12 between:10 beyond:3 big:5 "
    "bigger:3 biggest:2 binary:4 bit:3 bitten:2 blank:4 block:2 bool:3 boolean:10 bor:2 bound:3 box:3 bracket:2 "
    "break:7 broken:9 bucket:2 build:8 built:4 burn:3 busi:12 byte:3 c:6 cach:3 calendar:3 call:12 caller:3 came:5 "
    "cannot:4 canonical:3 cap:3 captur:2 carry:5 case:12 caus:2 ceil:3 century:2 chang:7 character:8 check:12 "
    "chosen:2 chunk:3 ci:6 class:2 classic:2 classifi:2 clear:7 clock:4 clos:4 code:12 column:2 com:3 combin:2 "
    "come:8 comma:6 command:3 common:2 compar:11 comparison:3 compil:2 complet:5 comput:5 concern:3 config:4 "
    "configurabl:2 configurat:2 constraint:3 contain:8 continu:2 contract:6 convention:3 conversion:4 convert:4 "
    "copy:2 core:12 count:12 cover:4 crash:2 creat:12 creativ:2 cross:3 current:4 dai:2 dash:4 dashboard:3 date:3 "
    "day:2 db:2 ddthh:2 debug:2 decid:5 decimal:6 decision:2 deep:2 default:12 defin:3 definition:3 deliver:12 "
    "delivery:6 depend:4 dependency:7 deploy:2 descend:2 describ:5 description:12 determinism:2 deterministic:5 "
    "dict:3 dif:2 diff:4 differ:6 different:8 digit:8 dir:12 direct:3 directory:12 distinct:3 divisibl:2 doc:2 "
    "docu:8 document:2 doesn:4 don:4 dot:4 doubl:3 down:4 driven:2 drop:3 duplicat:7 dur:2 durat:2 e:11 earlier:6 "
    "echo:2 elaps:2 ele:3 else:12 empty:12 end:12 engineer:12 entry:12 env:2 environ:5 equal:8 error:12 escap:3 "
    "even:10 event:2 ever:3 everyon:6 everyth:8 exact:12 exampl:12 exce:2 except:7 exclud:2 execution:12 exist:12 "
    "exit:3 expect:2 explicit:2 exponent:4 expos:12 expression:4 extra:5 eyeball:2 f:2 fail:8 failur:11 fall:4 "
    "fals:7 fancy:2 far:6 fast:2 fatal:3 featur:12 feed:12 few:12 fewer:5 field:12 file:12 fill:2 final:7 find:2 "
    "fine:9 first:12 five:2 fix:12 flag:4 float:9 floor:4 focus:12 folk:4 follow:12 forever:2 form:7 format:12 "
    "found:5 four:4 fraction:5 fractional:2 framework:2 free:7 ful:4 full:12 function:12 g:9 gap:2 garbag:3 "
    "generator:2 generic:2 get:8 give:11 given:10 go:12 goal:12 goe:3 gotcha:2 greater:3 gregorian:3 grep:3 "
    "ground:4 group:4 h:5 half:4 halv:2 hand:7 handl:9 happen:12 har:12 hard:2 header:5 helper:2 hidden:2 highest:2"
    " hold:12 host:3 hour:2 http:2 human:2 identical:3 ignor:12 immediat:4 impl:12 includ:12 inclusiv:6 incr:2 "
    "indent:2 independent:2 index:7 input:12 ins:3 insensitiv:5 insert:2 insertion:2 insid:7 install:2 instead:7 "
    "int:9 integer:9 interfac:12 internal:2 invalid:12 invok:12 io:12 item:3 itself:6 java:3 job:5 join:5 js:4 "
    "json:12 k:4 keep:12 kept:6 key:10 know:12 l:2 label:3 lack:2 land:4 larg:4 larger:3 largest:2 last:11 later:6 "
    "layout:12 lead:9 leap:2 least:4 leav:4 left:7 length:6 letter:5 level:4 library:12 lie:2 limit:7 line:12 "
    "linear:2 lint:2 list:12 literal:3 littl:3 live:2 lo:2 load:3 log:4 logic:12 long:3 look:12 lookup:2 loop:3 "
    "lot:2 lower:5 lowercas:2 lowest:3 machin:2 made:4 main:12 make:6 malform:10 many:8 map:2 mark:2 marker:2 "
    "match:9 matcher:2 math:3 matter:6 max:6 maximum:5 mean:6 measur:2 member:2 memory:3 merg:3 messag:11 met:2 "
    "method:12 millisecond:3 min:2 minor:2 minus:2 minut:2 miss:12 mm:3 mod:3 mode:4 model:2 modify:2 modul:12 "
    "moment:3 monolith:12 more:10 most:9 mov:3 move:2 ms:3 much:2 multi:2 multip:2 multipl:12 n:12 na:2 nam:12 "
    "name:12 nb:3 nc:3 nd:2 nearest:3 need:9 negat:2 negativ:8 network:3 never:12 new:5 newlin:12 next:10 nlin:3 "
    "nobody:8 node:3 noisy:2 non:11 none:7 normal:2 normalis:3 normalisat:2 note:3 noth:12 now:5 npm:3 nsummary:4 "
    "null:9 number:12 numeric:4 nx:2 object:12 off:4 offend:2 offlin:12 old:3 omit:2 once:12 op:4 open:2 operat:5 "
    "ops:4 option:6 optional:12 order:12 ordinary:4 org:2 organiz:12 other:11 otherwis:11 ourselv:2 out:10 outcom:2"
    " output:12 outsid:9 over:12 overall:2 overrid:2 own:6 p:4 packag:7 pad:3 pair:2 parameter:12 pars:10 parser:3 "
    "part:4 partial:2 party:2 pass:6 past:4 patch:3 path:4 pattern:2 peopl:7 per:12 phras:2 pick:4 pictur:2 piec:4 "
    "plac:4 plain:9 plan:2 platform:4 plus:11 point:12 policy:2 position:4 positiv:2 possibl:3 post:2 pre:3 "
    "preced:3 predictabl:4 prefix:5 present:11 previous:4 print:12 problem:8 process:12 prod:2 produc:9 product:6 "
    "program:12 project:12 proleptic:2 protocol:12 provid:12 public:12 publish:2 pure:6 push:2 put:12 py:9 python:9"
    " question:9 quick:4 quot:4 r:6 rais:5 random:2 rang:6 rank:2 rate:3 rather:3 raw:12 rcb:12 reach:2 read:12 "
    "real:5 reason:5 receiv:2 recognis:3 record:3 refer:12 regardless:4 reject:8 remain:2 remov:4 render:9 repeat:5"
    " replac:4 replay:2 repo:12 report:12 repository:12 reproduc:2 reproducibl:4 request:11 requir:11 reset:2 "
    "resolution:3 resolv:3 rest:2 result:12 retry:2 return:12 reus:2 review:6 reviewer:3 rfc:2 right:9 roll:4 "
    "root:12 rotat:2 rough:3 round:4 rule:9 run:12 same:12 say:8 scal:2 scan:3 schedul:2 scheduler:2 script:9 "
    "second:8 section:2 see:8 seed:2 seen:2 self:2 semantic:3 sensitiv:10 separat:12 separator:3 servic:5 set:7 "
    "several:9 sh:12 shap:7 shar:8 shell:2 ship:2 short:8 shorthand:5 shouldn:2 show:12 shown:10 side:4 signatur:12"
    " silent:2 simp:4 sinc:6 singl:12 six:3 size:5 skip:8 slash:3 slow:2 small:12 smaller:3 snapshot:2 somebody:3 "
    "someon:5 someth:3 sort:3 sourc:2 spac:10 span:4 spe:2 special:2 specifi:12 specific:12 specificat:4 split:9 "
    "spot:2 spreadsheet:2 stack:6 standard:11 start:10 stat:4 status:5 stay:5 stdin:12 stdout:12 stem:12 step:5 "
    "still:7 stop:6 stor:3 str:12 stray:2 strict:3 structur:12 styl:5 sub:12 succ:3 success:5 suffix:6 suggest:4 "
    "summary:5 support:8 surround:2 switch:2 syntax:6 tab:4 tabl:4 take:10 target:2 team:9 tell:5 ten:3 test:12 "
    "text:12 th:2 their:9 therefor:4 thin:12 thousand:4 thre:10 through:8 throw:3 tie:5 tild:2 time:8 timeout:2 "
    "timestamp:4 tiny:3 token:6 tolerat:3 tool:8 top:5 total:5 touch:2 trac:7 traceback:2 trail:7 treat:3 tree:2 "
    "trim:5 true:7 truncat:2 tupl:5 turn:7 twic:3 two:10 txt:12 typ:5 type:12 u:2 unchang:3 unclos:2 under:4 "
    "union:2 uniqu:2 unit:5 unknown:12 unless:5 unparsabl:3 unreachabl:2 unsign:2 unterminat:2 until:4 untrim:2 "
    "up:11 upper:2 ups:6 usabl:2 use:10 used:10 using:3 usual:10 utc:2 utf:3 util:4 v:5 valid:7 validat:12 valu:12 "
    "variabl:3 verbatim:2 version:3 vs:2 w:3 wait:2 want:2 web:3 week:2 weird:2 well:2 whatever:3 whether:6 whil:3 "
    "whitespac:5 whol:11 wildcard:2 win:11 window:2 within:4 without:10 word:10 work:12 world:2 wrap:4 writ:12 "
    "written:11 wrong:7 x:9 year:3 yes:12 yield:3 yyyy:3 z:7 zero:12 zone:2 ~array:12 ~cache:3 ~case:12 ~config:8 "
    "~count:12 ~cycle:3 ~default:12 ~dependency:11 ~directory:12 ~duplicate:9 ~empty:12 ~error:12 ~file:12 "
    "~format:12 ~function:12 ~handle:12 ~input:12 ~integer:12 ~large:8 ~limit:9 ~minimum:9 ~name:12 ~newline:12 "
    "~object:12 ~organize:12 ~output:12 ~run:12 ~separate:12 ~sort:12 ~string:12 ~test:12 ~time:10 ~valid:12 "
    "~whitespace:11|0024c9475910 01a0495bd5e8 01a7ad3a1daf 02232a2d6d50 02e94e112f15 03c21a047dfd 068493c40373 "
    "0847682220e0 091e0c4e6e00 0a632bc36017 0ad31fa45268 0ec8c0462783 0ed1a53cf490 11ac277b9b8e 124f45b965bb "
    "140bedbf9c3f 141400085b15 1645180503a3 16891d59bd1b 17eb3957bdf3 18d742c3fd4c 18dcbad78bfa 1a4197b79666 "
    "1af4e4a6715a 1cc73885c540 1e40ed559c48 1e6a4c8a521f 217daadfb488 217f5cae873d 23c681f0f76a 24f637c2db1a "
    "275709b2802a 28635ab85cce 28f6895e6298 292852fab482 2b35c444d403 2dd46cf6c827 2ea32e0d3616 2eb0e1d3c504 "
    "33e11f9a56e2 345bc5ff65b0 36a8ef72f679 37946cf2b96c 3bfe0bc49f1f 3c14e1fb5fd1 3dbb81bf3dde 431fe42af76f "
    "4369cd536aa8 43a1dc417c5a 4a466797dae2 4a81bd01b062 4c20af5b422c 4d1c3df97b49 4d4d25de65c0 4eaaa882d39e "
    "5055b7cf526d 50ede601eb12 519d9d05f793 51c057c7f467 52a2807da5c8 549b41cb8c04 55d49a08a96c 57813f1abba0 "
    "581e53bb817f 58f10b60e519 594bc8b6f0b9 5994471abb01 5d1664f88f3e 5dea43542f0e 5df19d17b041 5f7be4b85bd3 "
    "610d42a76601 62a5d682608f 6497e4b3d7be 6620f559797a 665cdf73d281 673bf4dfe977 68b34c56a10e 6c720c7241f5 "
    "6d1b15685e14 72f445cf3f62 755ef7e5bd80 75993ffef309 762e7c513ad3 799cf4b363a0 80a659e2f03c 81e1fd51d393 "
    "82f979d01fa6 845167caf086 847ea5b89859 852851882003 8639715dd343 8753c769a535 8b4fe18c4f98 8e5c417c51c1 "
    "8f318365eae6 9064c6f241ec 913b90305329 939e165f0880 94fdcd6d3838 96863aec2486 96ee01a855f4 978f2a91aa98 "
    "9acc458e3296 9bf103d3df44 9bf3e4a489eb a0bc124478d5 a1255ec9b376 a25c515bdfbb a2a5e1370b31 a37e80f82850 "
    "a6b6450b6a9e a8f6aec4dc83 aa3342f2fdd8 ab04ec010518 ac552397a2f2 ad070e2d3e55 ae39157dcaac b089fc5edb33 "
    "b41d2c5e6f7d b49d95ff7628 b66a4630536f b78376f3bc45 b80fa86d9f16 b979bce90054 bbcc35a2efac bc6407768570 "
    "bce67684d562 bcfa882dfe6d c1b3c6b3ab40 c1fa2054ef2d c21ec963dea3 c35c594d3dab c579b020948d cddc378d613e "
    "ceaf241451e1 cf8dc382ef84 cfeefd90027f d34db885fbb2 d3815e152ef3 d3b19ed4ea1e d50a62a15372 d7681e8cebbf "
    "d95a38cb9975 d9724f4fde34 dda381100858 df01a4bc94d2 e05a0179967f e1d4f6378529 e2b36f75b0d2 e34b736ea68d "
    "e55782189351 e66ecd6c1918 e763b8276095 ed022a8d37b5 ed6a9f2525ab f138a0920a1c f68f14dd98ae f8facb88852f "
    "f90494276501 f989ac2472ef f98f066b3efb fa72334b47e9 fff497b95a9d"
)

DEFAULT_BACKGROUND = Background.decode(_DEFAULT_TEXT)
