"""The numerics report and policy (numerics_report.py, docs/numerics.md): its parts on their own,
then an fp16-operand candidate for an fp32 GEMM through the real worker on the CPU under both
policies."""

from conftest import candidate, task_file

from kforge_worker.launches import dots_in_ttir
from kforge_worker.numerics_report import assess, rejection, source_facts

# tt.dot lines of the IR Triton 3.6 makes for the CUDA target (generated on this CPU machine with
# triton.compiler.ASTSource.make_ir for sm_90): the default, fp16 operands, ieee, tf32x3.
TTIR = """
    %c_43 = tt.dot %a_20, %b_41, %c_42, inputPrecision = tf32 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32> loc(#loc46)
    %d_47 = tt.dot %d, %d_44, %d_46, inputPrecision = tf32 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32> loc(#loc49)
    %e_49 = tt.dot %a_20, %b_41, %e_48 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32> loc(#loc50)
    %f_51 = tt.dot %a_20, %b_41, %f_50, inputPrecision = tf32x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32> loc(#loc51)
"""
JUDGE = {"cuda.matmul.allow_tf32": False, "cudnn.allow_tf32": True,
         "float32_matmul_precision": "highest"}


def test_dots_in_ttir_reads_operand_types_and_input_precision():
    assert dots_in_ttir(TTIR) == [
        {"a": "f32", "b": "f32", "acc": "f32", "input_precision": "tf32"},
        {"a": "f16", "b": "f16", "acc": "f32", "input_precision": "tf32"},
        {"a": "f32", "b": "f32", "acc": "f32", "input_precision": "ieee"},
        {"a": "f32", "b": "f32", "acc": "f32", "input_precision": "tf32x3"}]


def seen(dots=None, kernels=None, casts=None, ops=None, flags=None):
    return {"kernels": kernels or {}, "dots": dots or {}, "casts": casts or {}, "ops": ops or {},
            "flags": flags or {}}


def test_compiled_tf32_dot_is_lower_than_an_fp32_matmul_reference():
    report = assess("strict", {"fp32"}, seen(
        kernels={"k": {"float32"}}, dots={"k": dots_in_ttir(TTIR)[:1]}), {}, JUDGE, ["matmul"])
    assert report["summary"] == "tf32 operands, fp32 accumulate"
    assert report["lowered"]
    assert "inputPrecision tf32" in rejection(report)


def test_tf32_is_allowed_where_the_references_flags_allow_it():
    # cuDNN's convolutions run in TF32 by default (torch.backends.cudnn.allow_tf32)
    report = assess("strict", {"fp32"}, seen(
        kernels={"k": {"float32"}}, dots={"k": dots_in_ttir(TTIR)[:1]}), {}, JUDGE, ["conv2d"])
    assert report["summary"] == "tf32 operands, fp32 accumulate"
    assert not report["lowered"] and rejection(report) is None
    assert any("cuDNN" in line for line in report["evidence"])


def test_3xtf32_and_ieee_dots_are_fp32():
    report = assess("strict", {"fp32"}, seen(
        kernels={"k": {"float32"}}, dots={"k": dots_in_ttir(TTIR)[2:]}), {}, JUDGE, ["matmul"])
    assert not report["lowered"]
    report = assess("strict", {"fp32"}, seen(
        kernels={"k": {"float32"}}, dots={"k": dots_in_ttir(TTIR)[3:]}), {}, JUDGE, ["matmul"])
    assert report["summary"] == "fp32 (3xTF32) operands, fp32 accumulate"
    assert not report["lowered"]


def test_source_facts_find_casts_dot_precision_and_tf32_flags():
    facts = source_facts(
        "import torch\n"
        "@triton.jit\n"
        "def k(a_ptr):\n"
        "    a = tl.load(a_ptr).to(tl.bfloat16)\n"
        "    c = tl.dot(a, a)\n"
        "    d = tl.dot(a, a, input_precision='tf32x3', out_dtype=tl.float16)\n"
        "def forward(x):\n"
        "    torch.backends.cuda.matmul.allow_tf32 = True\n"
        "    return x.half()\n")
    assert facts["dots"] == [
        {"kernel": "k", "line": 5, "input_precision": "default", "out_dtype": None},
        {"kernel": "k", "line": 6, "input_precision": "tf32x3", "out_dtype": "fp16"}]
    assert [(f["line"], f["precision"], f["kernel"]) for f in facts["lowering"]] == [
        (4, "bf16", "k"), (9, "fp16", "forward")]
    assert facts["tf32_flags"] == [
        {"line": 8, "what": "torch.backends.cuda.matmul.allow_tf32 = True"}]


def test_a_default_dot_on_fp32_is_tf32_on_the_gpu_by_the_source():
    facts = source_facts("@triton.jit\ndef k(a):\n    c = tl.dot(a, a)\n")
    report = assess("strict", {"fp32"}, seen(kernels={"k": {"float32"}}), facts, JUDGE,
                    ["matmul"])
    assert report["summary"] == "tf32 operands, fp32 accumulate"
    assert "line 3: tl.dot in k without input_precision" in report["lowered_by"][0]


def test_tolerance_reports_and_never_rejects():
    report = assess("tolerance", {"fp32"}, seen(casts={"fp32->fp16": 4}), {}, JUDGE, ["matmul"])
    assert report["lowered"] and rejection(report) is None


def test_fp16_candidate_is_ok_under_tolerance_and_rejected_under_strict(worker):
    task, fp16 = task_file("gemm_exact"), candidate("matmul_fp16")
    result = worker.evaluate(task, fp16, numerics="tolerance")
    assert result["status"] == "ok", result["error"]
    numerics = result["numerics"]
    assert numerics["policy"] == "tolerance"
    assert numerics["summary"] == "fp16 operands, fp32 accumulate"
    assert numerics["reference"] == "fp32" and numerics["lowered"] is True
    evidence = "\n".join(numerics["evidence"])
    assert "Triton kernel matmul_fp16_kernel read/wrote fp32, fp16 tensors" in evidence
    assert "cast fp32 -> fp16 dispatched" in evidence
    assert "line 31: .to(torch.float16)" in evidence
    assert result["correctness"]["max_abs_err"] == 0  # exact in fp16: only the policy differs

    result = worker.evaluate(task, fp16, numerics="strict")
    assert result["status"] == "rejected"
    assert result["numerics"]["policy"] == "strict"
    assert result["reasons"][-1].startswith(
        "numerics: fp16 operands, fp32 accumulate where the reference computes in fp32 "
        "(--numerics strict): ")
    assert result["error"] == result["reasons"][-1]


def test_fp32_candidate_is_ok_under_strict(worker):
    result = worker.evaluate(task_file("gemm_exact"), candidate("matmul_triton"),
                             numerics="strict")
    assert result["status"] == "ok", result["error"]
    assert result["numerics"]["summary"] == "fp32 operands, fp32 accumulate"
    assert result["numerics"]["lowered"] is False


def test_unknown_policy_is_refused(worker):
    reply = worker.call("evaluate", task_path=task_file("gemm_exact"),
                        candidate_path=candidate("matmul_triton"), device="cpu",
                        numerics="loose")
    assert not reply["ok"]
    assert "numerics must be tolerance or strict" in reply["error"]
