r"""Realistic model outputs, three per row of the format table, each with the one action it must parse to.

Each row's turns make a short agent episode on ``icae/ProjectBuild-v0``: write ``greet.py``, run it, then view,
edit, ask or submit. They are written the way each model family prints them (prose, reasoning, special tokens,
JSON escapes or raw text), by hand after the models' chat templates.
"""

from __future__ import annotations

#: The script every episode writes, and what running it with the argument ``icae`` prints.
GREET = 'import sys\n\nprint("hello, " + (sys.argv[1] if len(sys.argv) > 1 else "world") + " <3")\n'
GREETING = "hello, icae <3\n"

WRITE = {"tool": "write_file", "path": "greet.py", "content": GREET}
RUN = {"tool": "bash", "command": "ls && python3 greet.py icae"}
RUN_TIMED = {**RUN, "timeout": 30.0}
VIEW = {"tool": "view", "path": "greet.py", "range": [1, 3]}
EDIT = {"tool": "str_replace", "path": "greet.py", "old": '"world"', "new": '"there"'}
ASK = {"tool": "ask", "question": "What should the summary line look like?"}
SUBMIT = {"tool": "submit"}

_PY = r"print(\"hello, \" + (sys.argv[1] if len(sys.argv) > 1 else \"world\") + \" <3\")"
#: GREET as a JSON string body (without the quotes), as models escape it.
GREET_JSON = r"import sys\n\n" + _PY + r"\n"

FORMATS: dict[str, list[tuple[object, dict]]] = {
    "reasoning": [
        (
            "<think>\nThe user wants a diff tool eventually. First check that Python runs here. I could run "
            "<bash>python3 --version</bash>, but a tiny script tells me more.\n</think>\n\n"
            f'I will start with a small script.\n\n<write_file path="greet.py">\n{GREET}</write_file>',
            WRITE,
        ),
        (
            "<thinking>\nNow run it. A fenced block works:\n```bash\nrm -rf /tmp/x\n```\nno, just run the "
            "script.\n</thinking>\nRunning it:\n```bash\nls && python3 greet.py icae\n```\n",
            RUN,
        ),
        (
            '[THINK]The default should say there. <str_replace path="greet.py"><old>x</old><new>y</new>'
            '</str_replace> is the shape.[/THINK]Changing the default name.\n<str_replace path="greet.py">'
            '<old>"world"</old><new>"there"</new></str_replace>',
            EDIT,
        ),
    ],
    "OpenAI JSON": [
        (
            '{"role": "assistant", "content": null, "tool_calls": [{"id": "call_0", "type": "function", '
            '"function": {"name": "write_file", "arguments": "{\\"path\\": \\"greet.py\\", \\"content\\": \\"'
            + GREET_JSON.replace("\\", "\\\\").replace('"', '\\"')
            + '\\"}"}}]}',
            WRITE,
        ),
        ('{"name": "bash", "arguments": {"command": "ls && python3 greet.py icae", "timeout": 30}}', RUN_TIMED),
        (
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "Check the file before going on.",
                "tool_calls": [
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "view", "arguments": '{"path": "greet.py", "range": [1, 3]}'},
                    }
                ],
            },
            VIEW,
        ),
        (  # small models write the call inside prose
            'Sure! To run the script I will call {"name": "bash", "arguments": {"command": "ls && python3 greet.py '
            'icae"}} and then read its output.',
            RUN,
        ),
        (  # or in a fence without a language
            'Next:\n```\n{"name": "ask", "arguments": {"question": "What should the summary line look like?"}}\n```',
            ASK,
        ),
    ],
    "Hermes": [
        (
            "<think>\nI'll write the script with write_file.\n</think>\n\nLet me create the script.\n<tool_call>\n"
            + '{"name": "write_file", "arguments": {"path": "greet.py", "content": "'
            + GREET_JSON
            + '"}}\n</tool_call>',
            WRITE,
        ),
        (
            '<tool_call>\n{"name": "bash", "arguments": {"command": "ls && python3 greet.py icae"}}\n</tool_call>',
            RUN,
        ),
        (
            "I need one detail first.\n<tool_call>\n" + '{"name": "ask", "arguments": {"question": '
            '"What should the summary line look like?"}}\n</tool_call>',
            ASK,
        ),
        (  # the stop token took the closing tag
            '<tool_call>\n{"name": "view", "arguments": {"path": "greet.py", "range": [1, 3]}}\n',
            VIEW,
        ),
    ],
    "Qwen3-Coder": [
        (
            "I'll create a small script first.\n\n<tool_call>\n<function=write_file>\n<parameter=path>\n"
            f"greet.py\n</parameter>\n<parameter=content>\n{GREET}\n</parameter>\n</function>\n</tool_call>",
            WRITE,
        ),
        (
            "<think>\nRun it with a timeout.\n</think>\n\n<tool_call>\n<function=bash>\n<parameter=command>\n"
            "ls && python3 greet.py icae\n</parameter>\n<parameter=timeout>\n30\n</parameter>\n</function>\n"
            "</tool_call>",
            RUN_TIMED,
        ),
        (
            "<seed:think>Look at the first lines.</seed:think>Let me check the file.<seed:tool_call>\n"
            "<function=view>\n<parameter=path>\ngreet.py\n</parameter>\n<parameter=range>\n[1, 3]\n</parameter>\n"
            "</function>\n</seed:tool_call>",
            VIEW,
        ),
    ],
    "GLM-4.5": [
        (
            "<think>I'll write the script. In GLM syntax that is <tool_call>write_file ... </tool_call>.</think>\n"
            "Writing the script.\n<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>greet.py</arg_value>\n"
            f"<arg_key>content</arg_key>\n<arg_value>{GREET}</arg_value>\n</tool_call>",
            WRITE,
        ),
        (
            "Now run it.<tool_call>bash<arg_key>command</arg_key><arg_value>ls && python3 greet.py icae"
            "</arg_value></tool_call>",
            RUN,
        ),
        (
            "Let me read it back.<tool_call>view<arg_key>path</arg_key><arg_value>greet.py</arg_value>"
            "<arg_key>range</arg_key><arg_value>[1, 3]</arg_value></tool_call>",
            VIEW,
        ),
    ],
    "Anthropic": [
        (
            "<thinking>A script first.</thinking>\n\nI'll write the script.\n\n<function_calls>\n"
            '<invoke name="write_file">\n<parameter name="path">greet.py</parameter>\n'
            f'<parameter name="content">{GREET}</parameter>\n</invoke>\n</function_calls>',
            WRITE,
        ),
        (
            '<think>Run it.</think>\nRunning the script.\n<minimax:tool_call>\n<invoke name="bash">\n'
            '<parameter name="command">ls && python3 greet.py icae</parameter>\n'
            '<parameter name="timeout">30</parameter>\n</invoke>\n</minimax:tool_call>',
            RUN_TIMED,
        ),
        (
            'Let me view it.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="view">\n'
            '<｜DSML｜parameter name="path" string="true">greet.py</｜DSML｜parameter>\n'
            '<｜DSML｜parameter name="range" string="false">[1, 3]</｜DSML｜parameter>\n'
            "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
            VIEW,
        ),
    ],
    "DeepSeek V3": [
        (
            "The script goes first; maybe <bash>touch greet.py</bash>? No, write it whole.\n</think>\n\n"
            "I'll write the script.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n"
            '```json\n{"path": "greet.py", "content": "'
            + GREET_JSON
            + '"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
            WRITE,
        ),
        (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>bash<｜tool▁sep｜>"
            '{"command": "ls && python3 greet.py icae"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
            RUN,
        ),
        (
            "Everything works, submitting.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>submit\n"
            "```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            SUBMIT,
        ),
    ],
    "Kimi K2": [
        (
            "<think>Write the script, then run it.</think>I'll create the script."
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>"
            + '{"path": "greet.py", "content": "'
            + GREET_JSON
            + '"}<|tool_call_end|><|tool_calls_section_end|>',
            WRITE,
        ),
        (
            "Now run it.<|tool_calls_section_begin|><|tool_call_begin|>functions.bash:1"
            '<|tool_call_argument_begin|>{"command": "ls && python3 greet.py icae", "timeout": 30}'
            "<|tool_call_end|><|tool_calls_section_end|>",
            RUN_TIMED,
        ),
        (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.str_replace:2<|tool_call_argument_begin|>"
            '{"path": "greet.py", "old": "\\"world\\"", "new": "\\"there\\""}<|tool_call_end|>'
            "<|tool_calls_section_end|>",
            EDIT,
        ),
    ],
    "harmony": [
        (
            '<|channel|>analysis<|message|>Need a script. Could emit <write_file path="x">y</write_file>, but '
            "functions.write_file is the tool.<|end|><|start|>assistant<|channel|>commentary "
            "to=functions.write_file <|constrain|>json<|message|>"
            + '{"path":"greet.py","content":"'
            + GREET_JSON
            + '"}<|call|>',
            WRITE,
        ),
        (
            "<|channel|>analysis<|message|>Run it.<|end|><|start|>assistant<|channel|>commentary<|message|>"
            "Running the script now.<|end|><|start|>assistant to=functions.bash<|channel|>commentary json"
            '<|message|>{"command":"ls && python3 greet.py icae"}<|call|>',
            RUN,
        ),
        (
            "<|channel|>analysis<|message|>Ask about the summary format.<|end|><|start|>assistant<|channel|>"
            "commentary to=functions.ask <|constrain|>json<|message|>"
            '{"question":"What should the summary line look like?"}',
            ASK,
        ),
    ],
    "Mistral": [
        (
            "[THINK]Write the script first.[/THINK]I'll write the script.[TOOL_CALLS]write_file[ARGS]"
            + '{"path": "greet.py", "content": "'
            + GREET_JSON
            + '"}</s>',
            WRITE,
        ),
        ('[TOOL_CALLS]bash[CALL_ID]a1B2c3D4e[ARGS]{"command": "ls && python3 greet.py icae"}', RUN),
        ('[TOOL_CALLS]view[ARGS]{"path": "greet.py", "range": [1, 3]}</s>', VIEW),
    ],
    "Mistral before v11": [
        (
            '[TOOL_CALLS] [{"name": "write_file", "arguments": {"path": "greet.py", "content": "'
            + GREET_JSON
            + '"}, "id": "a1B2c3D4e"}]</s>',
            WRITE,
        ),
        ('[TOOL_CALLS] [{"name": "bash", "arguments": {"command": "ls && python3 greet.py icae"}}]', RUN),
        ('[TOOL_CALLS] [{"name": "submit", "arguments": {}}]</s>', SUBMIT),
    ],
    "Llama 3": [
        (
            '<|python_tag|>{"name": "write_file", "parameters": {"path": "greet.py", "content": "'
            + GREET_JSON
            + '"}}<|eom_id|>',
            WRITE,
        ),
        ('{"name": "bash", "parameters": {"command": "ls && python3 greet.py icae", "timeout": 30}}', RUN_TIMED),
        ('<|python_tag|>{"name": "ask", "parameters": {"question": "What should the summary line look like?"}}', ASK),
    ],
    "Llama 4": [
        ('[write_file(path="greet.py", content="' + GREET_JSON + '")]', WRITE),
        ('<|python_start|>[bash(command="ls && python3 greet.py icae", timeout=30)]<|python_end|>', RUN_TIMED),
        ("[view(path='greet.py', range=[1, 3])]", VIEW),
    ],
    "Granite 3": [
        (
            '<|tool_call|>[{"name": "write_file", "arguments": {"path": "greet.py", "content": "' + GREET_JSON + '"}}]',
            WRITE,
        ),
        ('<|tool_call|>[{"name": "bash", "arguments": {"command": "ls && python3 greet.py icae"}}]', RUN),
        (
            '<|tool_call|>[{"name": "str_replace", "arguments": {"path": "greet.py", "old": "\\"world\\"", '
            '"new": "\\"there\\""}}]<|end_of_text|>',
            EDIT,
        ),
    ],
    "Gemma 4": [
        (
            '<|channel>thought\nA script first; <|tool_call>call:bash{command:<|"|>ls<|"|>}<tool_call|> can '
            "wait.<channel|>I'll write the script.<|tool_call>call:write_file{content:<|\"|>"
            + GREET
            + '<|"|>,path:<|"|>greet.py<|"|>}<tool_call|>',
            WRITE,
        ),
        (
            '<|tool_call>call:bash{command:<|"|>ls && python3 greet.py icae<|"|>,timeout:30}<tool_call|>',
            RUN_TIMED,
        ),
        ('Checking the file.<|tool_call>call:view{path:<|"|>greet.py<|"|>,range:[1,3]}<tool_call|>', VIEW),
    ],
    "icae tags": [
        (f'Writing the script.\n<write_file path="greet.py">\n{GREET}</write_file>', WRITE),
        ('<bash timeout="30">\nls && python3 greet.py icae\n</bash>', RUN_TIMED),
        ('Let me check.\n<view path="greet.py" range="1,3"/>', VIEW),
    ],
    "fenced block": [
        (f"Here is the script:\n```write_file path=greet.py\n{GREET}```\n", WRITE),
        ("Run it:\n\n```bash\nls && python3 greet.py icae\n```\n\nThe output will tell.", RUN),
        ("In a terminal:\n```console\n$ ls && python3 greet.py icae\n```", RUN),
        (
            "Done, submitting:\n```json\n" + '{"name": "submit", "arguments": {}}' + "\n```",
            SUBMIT,
        ),
    ],
}
