// OpDef's parameter lists and the OP_ADD registry.
#include "aicore/ops/register/op_def.h"

#include <map>
#include <mutex>

namespace ops {

OpParamDef& OpDef::Input(const char* name) {
  for (auto& p : inputs_) {
    if (p->name() == name) return *p;
  }
  inputs_.push_back(std::make_unique<OpParamDef>(name));
  return *inputs_.back();
}

OpParamDef& OpDef::Output(const char* name) {
  for (auto& p : outputs_) {
    if (p->name() == name) return *p;
  }
  outputs_.push_back(std::make_unique<OpParamDef>(name));
  return *outputs_.back();
}

OpAttrDef& OpDef::Attr(const char* name) {
  for (auto& a : attrs_) {
    if (a->name() == name) return *a;
  }
  attrs_.push_back(std::make_unique<OpAttrDef>(name));
  return *attrs_.back();
}

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, OpDefRegistry::Factory> factories;
  std::map<std::string, std::unique_ptr<OpDef>> built;
};

Registry& Reg() {
  static auto* r = new Registry();
  return *r;
}

}  // namespace

void OpDefRegistry::Register(const char* type, Factory factory) {
  Registry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  r.factories[type] = std::move(factory);
  r.built.erase(type);
}

const OpDef* OpDefRegistry::Find(const std::string& type) {
  Registry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  auto b = r.built.find(type);
  if (b != r.built.end()) return b->second.get();
  auto f = r.factories.find(type);
  if (f == r.factories.end()) return nullptr;
  auto [it, inserted] = r.built.emplace(type, f->second());
  return it->second.get();
}

std::vector<std::string> OpDefRegistry::Types() {
  Registry& r = Reg();
  std::lock_guard<std::mutex> lk(r.mu);
  std::vector<std::string> types;
  for (const auto& [type, factory] : r.factories) types.push_back(type);
  return types;
}

}  // namespace ops
