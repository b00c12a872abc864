; chunkproof prove: v6-current / rocm / I-9 (token by token, each request receives exactly its own positions once (gather, all-gather, reorg))
; split: B=64,W=8,I=1; method: split grid (concrete B, W, I): one arbitrary greedy step (induction), any ctx, linear arithmetic
; step 1 'all-occurs': some case of the domain has this piece (the proofs below are about it)
; domain: pinned block=64 dcp=8 interleave=1 workspace=65536; block 1..64, dcp 1..8, interleave | block (<= 1), workspace 1..65536, ctx 0..2097152; old planner: n = 1..16 prefills with context; packed planner split grid (block, dcp, interleave pinned: every row): block in {64} x interleave in divisors(B) n {1,2,4,..,64,B} x dcp 1..8
; the query asserts the domain, the arithmetic's witness definitions (floor division:
;   d > 0 => a = d*q + r, 0 <= r < d), the earlier steps, and the NEGATED step goal:
;   a WITNESS step: sat = the case occurs (the proofs are about something); unsat = vacuous
; inputs: S block ctx dcp interleave position rank rows slot split_div_align start
; 
(set-info :status unknown)
(declare-fun S () Int)
(declare-fun ctx () Int)
(declare-fun max_model_len () Int)
(declare-fun max_num_seqs () Int)
(declare-fun rank () Int)
(declare-fun rows () Int)
(declare-fun split_div_align () Int)
(declare-fun start () Int)
(declare-fun start_div_align () Int)
(assert
 (>= 64 1))
(assert
 (<= 64 64))
(assert
 (and (>= 1 1) (<= 1 64)))
(assert
 (<= 1 1))
(assert
 (let (($t1 (>= 64 1)))
 (and $t1 (= 64 (* 1 64)))))
(assert
 (>= 8 2))
(assert
 (<= 8 8))
(assert
 (let (($t2 (= max_num_seqs 0)))
 (let (($t3 (= max_model_len 0)))
 (and $t3 $t2))))
(assert
 (let (($t4 (<= S 65536)))
 (let (($t5 (>= S 1)))
 (and $t5 $t4))))
(assert
 (= 64 64))
(assert
 (= 8 8))
(assert
 (= 1 1))
(assert
 (= S 65536))
(assert
 (>= ctx 1))
(assert
 (let (($t6 (>= start_div_align 0)))
 (and (and $t6 (= start (* 64 start_div_align))) (< start ctx))))
(assert
 (let (($t7 (>= rows 0)))
 (and $t7 (<= rows (div S 8)))))
(assert
 (let ((?t8 (div S 8)))
 (let ((?t9 (* (div (- (+ start (* 1 8)) 1) 8) 1)))
 (let ((?t10 (- (+ (+ start (* (+ split_div_align 1) 64)) (* 1 8)) 1)))
 (let ((?t11 (div S 64)))
 (let ((?t12 (* ?t11 64)))
 (let ((?t13 (* (div (- (- ctx start) 1) 64) 64)))
 (let ((?t14 (ite (>= ?t12 ?t13) ?t13 ?t12)))
 (let ((?t15 (div (ite (>= ?t14 0) ?t14 0) 64)))
 (let (($t16 (or (= split_div_align ?t15) (not (<= (+ rows (- (* (div ?t10 8) 1) ?t9)) ?t8)))))
 (let ((?t17 (div (- (+ (+ start (* split_div_align 64)) (* 1 8)) 1) 8)))
 (let ((?t18 (- (* ?t17 1) ?t9)))
 (let (($t19 (and (and (>= split_div_align 0) (<= split_div_align ?t15)) (<= (+ rows ?t18) ?t8))))
 (and $t19 $t16))))))))))))))
(assert
 (let (($t20 (>= rank 0)))
 (and $t20 (< rank 8))))
(assert
 (and (>= (* split_div_align 64) 0) (<= (* split_div_align 64) (- (- ctx start) 1))))
(assert
 (let ((?t8 (div S 8)))
 (let ((?t9 (* (div (- (+ start (* 1 8)) 1) 8) 1)))
 (let ((?t21 (div (- (+ (+ start (- ctx start)) (* 1 8)) 1) 8)))
 (let ((?t22 (- (* ?t21 1) ?t9)))
 (let (($t23 (<= (+ rows ?t22) ?t8)))
 (let (($t24 (not $t23)))
 (not $t24))))))))
(check-sat)
