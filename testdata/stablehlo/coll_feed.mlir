// infeed, outfeed, send and recv (host transfers) as the StableHLO
// specification's examples use them, with tokens threaded through.  The
// --infeed queue (scripts/gen-stablehlo-coll.py) holds [[1, 2], [3, 4]],
// [[5, 6], [7, 8]] (the spec's infeed_queue) and then [9, 10] for the recv:
//   results0#0 = [[1, 2], [3, 4]], results1#0 = [[5, 6], [7, 8]],
//   recv data = [9, 10];
// the outfeed hands [[1, 2], [3, 4]] and [9, 10] to the host (outfeed0.npy,
// outfeed1.npy), the send [[5, 6], [7, 8]] (outfeed2.npy).
module @coll_feed {
  func.func public @main() -> (tensor<2x2xi64>, tensor<2x2xi64>, tensor<2xi64>) {
    %token = stablehlo.after_all : !stablehlo.token
    %results0:2 = "stablehlo.infeed"(%token) {
      infeed_config = ""
    } : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
    %results1:2 = "stablehlo.infeed"(%results0#1) <{infeed_config = "", layout = [[0, 1]]}> : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
    %r:2 = "stablehlo.recv"(%results1#1) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>,
      is_host_transfer = true
    } : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
    %o = "stablehlo.outfeed"(%results0#0, %r#0, %r#1) {
      outfeed_config = ""
    } : (tensor<2x2xi64>, tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
    %s = "stablehlo.send"(%results1#0, %o) {
      channel_handle = #stablehlo.channel_handle<handle = 2, type = 2>,
      is_host_transfer = true
    } : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token
    return %results0#0, %results1#0, %r#0 : tensor<2x2xi64>, tensor<2x2xi64>, tensor<2xi64>
  }
}
