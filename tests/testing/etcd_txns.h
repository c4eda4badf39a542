// Small etcd transactions for tests of the etcd ledger's plumbing.
#ifndef TOPOPLACE_TESTS_TESTING_ETCD_TXNS_H_
#define TOPOPLACE_TESTS_TESTING_ETCD_TXNS_H_

#include <string>

#include "etcdserverpb/etcd_subset.pb.h"

namespace topoplace::testing {

// Puts `key` = `value` only if `key` does not exist; reads it back when it does.
inline etcdserverpb::TxnRequest PutIfAbsent(const std::string& key, const std::string& value) {
  etcdserverpb::TxnRequest txn;
  etcdserverpb::Compare* c = txn.add_compare();
  c->set_key(key);
  c->set_target(etcdserverpb::Compare::CREATE);
  c->set_create_revision(0);
  etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
  put->set_key(key);
  put->set_value(value);
  txn.add_failure()->mutable_request_range()->set_key(key);
  return txn;
}

}  // namespace topoplace::testing

#endif  // TOPOPLACE_TESTS_TESTING_ETCD_TXNS_H_
