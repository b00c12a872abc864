; chunkproof prove: v6-current / cuda / I-6 (under DCP every non-zero chunk start is a multiple of V = I*W and local start = start/W)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 11 'aligned': a non-zero start is a multiple of V and local_start*W == start
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (a counterexample to the invariant)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun lcm_y!2 () Int)
(declare-fun q!23 () Int)
(declare-fun q!9 () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (let (($t2 (>= ?t1 0)))
 (and (= start (* (* interleave dcp) ?t1)) $t2))))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (= q!23 ?t1)))
(assert
 (let ((?t1 (* lcm_y!2 start_div_align)))
 (= q!9 ?t1)))
(assert
 (let (($t3 (and (= (- start (* q!23 (* interleave dcp))) 0) (= (* (* q!9 interleave) dcp) start))))
 (let (($t4 (=> (> start 0) $t3)))
 (not $t4))))
(check-sat)
