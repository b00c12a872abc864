// See ../cuda_runtime.h: RCCL's header name, resolved to NCCL's nccl.h (the same API).
#pragma once
#include <nccl.h>
