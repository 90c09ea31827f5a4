// A C++ program on the installed C++ API: reads single_key's signature from
// the package named by argv[1] (attnc::pkg types), runs it on the host and
// checks that every output row is the key's value row (to float rounding).

#include <attnc/runtime/Runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

using attnc::rt::TensorRef;

namespace {

std::vector<int64_t> staticShape(const attnc::pkg::TensorSig &sig) {
  std::vector<int64_t> shape;
  for (const attnc::pkg::Dim &dim : sig.shape)
    shape.push_back(dim.extent);
  return shape;
}

int check(const attnc::rt::Function &fn) {
  const attnc::pkg::Function &sig = fn.signature();
  if (sig.inputs.size() != 3 || sig.outputs.size() != 1) {
    std::fprintf(stderr, "unexpected signature\n");
    return 1;
  }
  std::vector<std::vector<float>> data;
  std::vector<TensorRef> inputs, outputs;
  auto tensor = [&](const attnc::pkg::TensorSig &s, float step) {
    TensorRef ref{nullptr, s.dtype, staticShape(s), {}};
    size_t elements = 1;
    for (int64_t extent : ref.shape)
      elements *= static_cast<size_t>(extent);
    std::vector<float> values(elements);
    for (size_t i = 0; i < elements; ++i)
      values[i] = step * static_cast<float>(i % 11) - 1.0f;
    data.push_back(std::move(values));
    ref.data = data.back().data();
    return ref;
  };
  data.reserve(4);
  for (size_t i = 0; i < 3; ++i)
    inputs.push_back(tensor(sig.inputs[i], 0.5f + static_cast<float>(i)));
  outputs.push_back(tensor(sig.outputs[0], 0.0f));
  if (attnc::Status s = fn.call(inputs, outputs); !s.isOk()) {
    std::fprintf(stderr, "call: %s\n", s.message().c_str());
    return 1;
  }
  const std::vector<float> &v = data[2], &out = data[3];
  const int64_t heads = outputs[0].shape[1], rows = outputs[0].shape[2],
                width = outputs[0].shape[3];
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t d = 0; d < width; ++d)
        if (std::fabs(out[(h * rows + i) * width + d] - v[h * width + d]) >
            1e-5f) {
          std::fprintf(stderr, "out[0,%lld,%lld,%lld] is wrong\n",
                       static_cast<long long>(h), static_cast<long long>(i),
                       static_cast<long long>(d));
          return 1;
        }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cxx_consumer PACKAGE\n");
    return 2;
  }
  auto rt = attnc::rt::Runtime::open("host");
  if (!rt.isOk()) {
    std::fprintf(stderr, "open: %s\n", rt.status().message().c_str());
    return 1;
  }
  auto package = rt->load(argv[1]);
  if (!package.isOk()) {
    std::fprintf(stderr, "load: %s\n", package.status().message().c_str());
    return 1;
  }
  auto fn = package->function("single_key");
  if (!fn.isOk()) {
    std::fprintf(stderr, "function: %s\n", fn.status().message().c_str());
    return 1;
  }
  if (int status = check(*fn))
    return status;
  std::printf("cxx_consumer: %zu function(s), ok\n",
              package->functionNames().size());
  return 0;
}
