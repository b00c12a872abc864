// See cuda_runtime.h in this directory: nccl.h includes it; nothing of it is used.
#pragma once
