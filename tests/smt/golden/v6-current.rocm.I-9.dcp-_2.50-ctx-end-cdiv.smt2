; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 50 'ctx-end-cdiv': cdiv(start + (ctx - start), I*W) = cdiv(ctx, I*W)
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun ctx () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!11 () Int)
(declare-fun q!31 () Int)
(declare-fun r!12 () Int)
(declare-fun r!32 () Int)
(declare-fun start () Int)
(assert
 (let (($t1 (>= r!12 0)))
 (let (($t2 (= (- (+ (+ start (- ctx start)) (* interleave dcp)) 1) (+ (* (* interleave dcp) q!11) r!12))))
 (let ((?t3 (* interleave dcp)))
 (let (($t4 (> ?t3 0)))
 (=> $t4 (and (and $t2 $t1) (< r!12 ?t3))))))))
(assert
 (let (($t5 (>= r!32 0)))
 (let (($t6 (= (- (+ ctx (* interleave dcp)) 1) (+ (* (* interleave dcp) q!31) r!32))))
 (let ((?t3 (* interleave dcp)))
 (let (($t4 (> ?t3 0)))
 (=> $t4 (and (and $t6 $t5) (< r!32 ?t3))))))))
(assert
 (let (($t7 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t7)))
(assert
 (let (($t8 (=> (<= (- q!11 q!31) 0) (<= (* (* interleave dcp) (- q!11 q!31)) 0))))
 (let (($t9 (=> (>= (- q!11 q!31) 0) (>= (* (* interleave dcp) (- q!11 q!31)) 0))))
 (let ((?t3 (* interleave dcp)))
 (let ((?t10 (- ?t3)))
 (let ((?t11 (- q!11 q!31)))
 (let ((?t12 (* ?t3 ?t11)))
 (let (($t13 (and (=> (>= ?t11 1) (>= ?t12 ?t3)) (=> (<= ?t11 (- 1)) (<= ?t12 ?t10)))))
 (let (($t14 (>= ?t3 1)))
 (=> $t14 (and (and $t13 $t9) $t8)))))))))))
(assert
 (let (($t15 (= q!11 q!31)))
 (not $t15)))
(check-sat)
