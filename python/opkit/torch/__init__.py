"""opkit.torch — opkit's kernels as differentiable PyTorch functions, modules, and one-call
patching of Hugging Face models (docs/pytorch.md).

    import opkit.torch as okt
    y = okt.rms_norm(x, weight)                 # autograd, torch.compile, CUDA graphs
    okt.apply_opkit_to_llama(model)             # RMSNorm, SwiGLU MLP, RoPE, loss
    okt.unpatch()

The kernels run on the inputs' device: NVIDIA (cuda vendor), AMD (rocm vendor, a ROCm
PyTorch), Ascend (torch_npu tensors), and the CPU defaults everywhere else.
"""
from ._functional import (HAS_CUSTOM_OP, apply_rotary, cross_entropy, cross_entropy_inplace,  # noqa: F401
                          embedding, geglu, layer_norm, rms_norm, rope_qk, softmax, swiglu)
from ._modules import CrossEntropyLoss, Embedding, GeGLUMLP, LayerNorm, RMSNorm, SwiGLUMLP  # noqa: F401
from ._patch import (apply_opkit_to_gemma, apply_opkit_to_llama, apply_opkit_to_mistral,  # noqa: F401
                     apply_opkit_to_qwen2, patch, unpatch)
