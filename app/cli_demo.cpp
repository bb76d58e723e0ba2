#include "app/cli_demo.h"

#include <chrono>
#include <cstdio>
#include <iomanip>

#include "engine/models/model_factory.h"
#include "engine/tasks/seasonal_series.h"

namespace rsalab {

int runDemo(const DemoOptions& options, std::ostream& out) {
  SeasonalSeriesOptions series_options;
  series_options.seed = static_cast<uint64_t>(options.seed);
  auto series = makeSeasonalSeries(series_options);
  const int64_t T = 48;
  auto split = series.size(0) * 3 / 4;
  auto [train_x, train_y] = nextStepWindows(series.narrow(0, 0, split), T, 4);
  auto [test_x, test_y] = nextStepWindows(series.narrow(0, split, series.size(0) - split), T, T);
  out << "demo: next-step forecasting of a seasonal + AR(1) series, T = " << T << ", "
      << train_x.size(0) << " training windows, " << test_x.size(0) << " test windows, "
      << options.seconds_per_model << " s per model\n";
  out << std::left << std::setw(13) << "model" << std::right << std::setw(10) << "params"
      << std::setw(8) << "steps" << std::setw(12) << "test before" << std::setw(12) << "test after"
      << "\n";
  for (const auto& name : modelNames()) {
    if (name == "encdec") continue;  // sequence-to-sequence only
    torch::manual_seed(options.seed);
    ModelOptions model_options;
    model_options.model = name;
    model_options.d_model = options.d_model;
    auto net = makeSequenceModel(model_options, ModelIO{1, 0, 1, false});
    auto evaluate = [&] {
      torch::NoGradGuard no_grad;
      return torch::mse_loss(net->forward(test_x), test_y).item<double>();
    };
    const double before = evaluate();
    torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(3e-3));
    const auto start = std::chrono::steady_clock::now();
    int64_t steps = 0;
    const int64_t batch = 32;
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
           options.seconds_per_model) {
      auto idx = torch::randint(train_x.size(0), {batch}, torch::kInt64);
      opt.zero_grad();
      auto loss =
          torch::mse_loss(net->forward(train_x.index_select(0, idx)), train_y.index_select(0, idx));
      loss.backward();
      opt.step();
      ++steps;
    }
    const double after = evaluate();
    out << std::left << std::setw(13) << name << std::right << std::setw(10)
        << net->parameterCount() << std::setw(8) << steps << std::fixed << std::setprecision(4)
        << std::setw(12) << before << std::setw(12) << after << "\n";
    out.unsetf(std::ios::fixed);
  }
  return 0;
}

}  // namespace rsalab
