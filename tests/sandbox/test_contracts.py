"""The seed 004 T-002 output wrapper."""

from shokunin.sandbox import ExecPythonOutput, ExecResult


def test_exec_python_output_wraps_a_result() -> None:
    out = ExecPythonOutput.model_validate({"result": {"ok": False, "error_type": "Timeout"}})
    assert isinstance(out.result, ExecResult) and out.result.error_type == "Timeout"
    assert out.model_dump()["result"]["plot_png_base64"] == []
