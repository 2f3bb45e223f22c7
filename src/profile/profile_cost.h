// How far a kernel is from the device's limit -- the baseline to beat: an
// estimate of the bytes an op must move and the FLOPs it must do, from the
// input shapes and dtypes torch.profiler recorded (record_shapes=True), and
// the device's peak memory bandwidth and dense compute from a small table of
// datasheet numbers.
//
// The model is the textbook minimum per op family, not a simulation: every
// input read once and every output written once (bytes), 2*M*N*K for a
// matrix product, 2*N*K*C*R*S*Hout*Wout for a convolution, 4*B*H*L*S*D for
// attention's two products (10*B*H*L*S*D backward), and one operation per
// element for elementwise ops and reductions (a few for normalization and
// softmax). An op outside the families gets no estimate rather than a
// guessed one. profile_cost_test checks each family on a worked example.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace optrace {

struct OpCost {
  std::string family;  // "matmul" | "conv" | "attention" | "elementwise" | "reduction" | "norm" | "softmax" | ""
  double bytes = 0;    // estimated minimum bytes moved (0: no estimate)
  double flops = 0;    // estimated floating-point operations (0: none)
  std::string dtype;   // of the first tensor input: "bfloat16", "float32", ...
  std::string note;    // what the estimate assumed, or why there is none
  bool valid() const { return !family.empty() && bytes > 0; }
};

// `op`: the aten op name as recorded ("aten::addmm"); `dims`/`types`/`concrete`: its "Input Dims",
// "Input type" and "Concrete Inputs" (may be empty).
OpCost EstimateOpCost(std::string_view op, const std::vector<std::vector<int64_t>>& dims,
                      const std::vector<std::string>& types, const std::vector<std::string>& concrete);

// Bytes of one element of a profiler dtype name ("c10::BFloat16", "float", "long int"); 0 unknown.
int DtypeBytes(std::string_view type);
// The dtype as optrace names it ("bfloat16", "float32", ...); "" unknown.
std::string ProfilerDtypeName(std::string_view type);

struct DevicePeak {
  std::string name;        // "H200"
  double hbm_tbs = 0;      // TB/s
  double bf16_tflops = 0;  // dense tensor-core BF16/FP16
  double tf32_tflops = 0;  // dense tensor-core TF32
  double fp32_tflops = 0;  // non-tensor FP32 (0: not listed)
  std::string source;      // the datasheet it comes from
};

// The table entry whose name occurs in `device` ("NVIDIA H200" -> H200); nullptr when none.
const DevicePeak* FindDevicePeak(std::string_view device);
const std::vector<DevicePeak>& DevicePeaks();

// The compute peak (TFLOPS) an op of `family` on `dtype` can reach on `d`:
// tensor-core BF16 for 16-bit matmul/conv/attention, TF32 for float32
// convolution (cuDNN's default), plain FP32 for a float32 matmul (torch's
// default); 0 when the family is memory-bound or the table has no number.
double ComputePeakTflops(const DevicePeak& d, const std::string& family, const std::string& dtype);

}  // namespace optrace
