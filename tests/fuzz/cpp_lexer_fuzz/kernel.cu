namespace at { namespace native {
#define M(x) x##_stub
__global__ void k(float* p) { p[0] = 1; }
Tensor f(const Tensor& s) {
  AT_DISPATCH_FLOATING_TYPES(s.scalar_type(), "f", [&] { k<<<1, 1>>>(nullptr); });
  return s;
}
REGISTER_DISPATCH(f_stub, &f_kernel);
TORCH_IMPL_FUNC(g_out)(const Tensor& a) { auto r = R"x(raw)x"; }
}}
