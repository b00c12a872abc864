; chunkproof prove: v6-current / rocm / I-7 (under DCP, per chunk, the padded local rows fit S/W)
; split: dcp>=2; method: closed lemma chain over one arbitrary greedy step (induction), symbolic B/W/I
; step 11 'allgather-offset': R = S + S//W = (W+1)*(S//W) + S mod W and S mod W < W+1: R // (W+1) = S // W
; domain: block 1..16384, dcp 1..64, interleave | block, S sized from max_model_len 1..2097152 and max_num_seqs 1..1024, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner (I-3 with an explicit workspace only) split grid: block in {1,2,3,16,64,128,1024,11000,16384} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..64
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   unsat = the step holds; sat = a model violating it (the lemma chain is broken)
; inputs: S block ctx dcp interleave max_model_len max_num_seqs rows split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun dcp () Int)
(declare-fun interleave () Int)
(declare-fun q!23 () Int)
(declare-fun q!5 () Int)
(declare-fun r!24 () Int)
(declare-fun r!6 () Int)
(assert
 (let (($t1 (and (and (= S (+ (* dcp q!5) r!6)) (>= r!6 0)) (< r!6 dcp))))
 (let (($t2 (> dcp 0)))
 (=> $t2 $t1))))
(assert
 (let (($t3 (>= r!24 0)))
 (let (($t4 (and (and (= (+ S q!5) (+ (* (+ dcp 1) q!23) r!24)) $t3) (< r!24 (+ dcp 1)))))
 (let ((?t5 (+ dcp 1)))
 (let (($t6 (> ?t5 0)))
 (=> $t6 $t4))))))
(assert
 (let (($t7 (>= interleave 1)))
 (and (and (>= (* interleave dcp) 1) (>= dcp 1)) $t7)))
(assert
 (let (($t8 (=> (<= (- q!23 q!5) 0) (<= (* (+ dcp 1) (- q!23 q!5)) 0))))
 (let (($t9 (=> (>= (- q!23 q!5) 0) (>= (* (+ dcp 1) (- q!23 q!5)) 0))))
 (let (($t10 (=> (<= (- q!23 q!5) (- 1)) (<= (* (+ dcp 1) (- q!23 q!5)) (- (+ dcp 1))))))
 (let (($t11 (=> (>= (- q!23 q!5) 1) (>= (* (+ dcp 1) (- q!23 q!5)) (+ dcp 1)))))
 (=> (>= (+ dcp 1) 1) (and (and (and $t11 $t10) $t9) $t8)))))))
(assert
 (let (($t12 (= q!23 q!5)))
 (not $t12)))
(check-sat)
