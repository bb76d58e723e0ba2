// SPDX-License-Identifier: GPL-3.0-or-later
// A trained model's weights for PyTorch: a .safetensors file (engine/core/io/safetensors.h) whose
// tensor names are the state_dict names of the bench's PyTorch peer (bench/peer/models.py), so that
//   net = models.make_model(model, d, h, L); net.load_state_dict(load_file(path), strict=True)
// works for every model the peer has (rsalab-cli export; bench/peer/check_export.py checks it).
//
// The names: the engine registers its modules under the peer's names (models.py was written as
// their mirror, and check_same_loss.py loads the engine's parameters into it as they are), so the
// map from LibTorch's names to the peer's is the identity for those models; peerTensorName is
// the one place that would say otherwise. What the peer cannot build (its models take real
// features per position, causal, ungated, with the default REM heads and no skip path) is
// exported under the LibTorch names and the metadata says why ("peer": the reason).
#pragma once

#include <string>

#include "engine/core/io/safetensors.h"

namespace rsalab {

class Trainer;
struct ModelOptions;
struct ModelIO;

// "" when bench/peer/models.py builds the same model with the same parameter names, else why not
// (e.g. "the peer has no linear skip path (skip_lags = 24)").
std::string peerIncompatibility(const ModelOptions& options, const ModelIO& io);
// The peer's state_dict name of a LibTorch parameter name of a model the peer has.
std::string peerTensorName(const std::string& model, const std::string& libtorch_name);

struct ModelExport {
  SafetensorsFile weights;  // every parameter; "__metadata__" below
  SafetensorsFile sample;   // "x": 4 standard normal inputs (seed 0), "y": the model's outputs
};
// Metadata of `weights`: format "rsalab-weights", rsalab_version, model, tensor_names ("peer" or
// "libtorch"), peer ("yes" or the reason it cannot be loaded there), config (the run's
// config.json), input_dim, output_dim, vocab, ff_mult, revin, steps. revin "yes": the model holds
// RevIN's affine (norm revin), exported with it as revin_weight and revin_bias, (input_dim) each,
// which engine/training/series_norm.h applies around the network (the sample's y is the network's
// output alone, as for every norm). The sample is empty for seq2seq.
ModelExport exportModel(Trainer& trainer);

}  // namespace rsalab
